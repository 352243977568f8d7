//! List envelopes, paging links and headers, shared by every collection.

use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use serde::Serialize;
use serde::ser::SerializeMap;

use super::error::ApiError;
use super::json::json;
use super::urls::with_query;
use crate::domain::event::Total;

/// The header saying that a list's totals are floors (docs/departures.md, "Totals of
/// searches"), and its value.
pub const TOTAL_IS_FLOOR: (&str, &str) = ("x-calendar-total", "at-least");

/// Where the page is and where the neighbours are.
pub struct Paging {
    pub total: u64,
    /// The total is a floor: a search counted its matches up to a limit.
    pub at_least: bool,
    pub total_pages: u64,
    pub rest_url: String,
    pub next: Option<String>,
    pub previous: Option<String>,
}

impl Paging {
    /// `echo` is the effective query without `page`. `rest_url` puts `page` first, the
    /// neighbours put it last and drop it for page 1, as the reference does.
    pub fn new(
        base: &str,
        page: u64,
        per_page: u64,
        total: Total,
        echo: &[(String, String)],
        page_in_rest_url: bool,
    ) -> Paging {
        let Total { count, at_least } = total;
        let total_pages = count.div_ceil(per_page.max(1));
        let with_page = |n: u64, first: bool| {
            let mut pairs = Vec::with_capacity(echo.len() + 1);
            if first {
                pairs.push(("page".to_string(), n.to_string()));
            }
            pairs.extend_from_slice(echo);
            if !first && n > 1 {
                pairs.push(("page".to_string(), n.to_string()));
            }
            with_query(base, &pairs)
        };
        Paging {
            total: count,
            at_least,
            total_pages,
            rest_url: if page_in_rest_url {
                with_page(page, true)
            } else {
                with_query(base, echo)
            },
            // A floor counts at least to the end of the page asked: more follow it.
            next: (page < total_pages || at_least).then(|| with_page(page + 1, false)),
            previous: (page > 1).then(|| with_page(page - 1, false)),
        }
    }
}

/// Which envelope layout a collection uses.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `{items, rest_url, next?, previous?, total, total_pages}` (events, venues, organizers)
    Posts,
    /// `{rest_url, total, total_pages, items, next?, previous?}` (categories, tags)
    Terms,
}

struct Envelope<'a, T> {
    key: &'static str,
    items: &'a [T],
    paging: &'a Paging,
    layout: Layout,
}

impl<T: Serialize> Serialize for Envelope<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let p = self.paging;
        let mut m = s.serialize_map(None)?;
        if self.layout == Layout::Posts {
            m.serialize_entry(self.key, self.items)?;
        }
        m.serialize_entry("rest_url", &p.rest_url)?;
        if self.layout == Layout::Posts {
            if let Some(n) = &p.next {
                m.serialize_entry("next_rest_url", n)?;
            }
            if let Some(prev) = &p.previous {
                m.serialize_entry("previous_rest_url", prev)?;
            }
        }
        m.serialize_entry("total", &p.total)?;
        m.serialize_entry("total_pages", &p.total_pages)?;
        if self.layout == Layout::Terms {
            m.serialize_entry(self.key, self.items)?;
            if let Some(n) = &p.next {
                m.serialize_entry("next_rest_url", n)?;
            }
            if let Some(prev) = &p.previous {
                m.serialize_entry("previous_rest_url", prev)?;
            }
        }
        m.end()
    }
}

/// The list response with its totals in the body and in headers.
pub fn respond<T: Serialize>(
    key: &'static str,
    items: &[T],
    paging: &Paging,
    layout: Layout,
) -> Result<Response, ApiError> {
    let mut resp = json(
        StatusCode::OK,
        &Envelope {
            key,
            items,
            paging,
            layout,
        },
    );
    let h = resp.headers_mut();
    let total = HeaderValue::from(paging.total);
    let pages = HeaderValue::from(paging.total_pages);
    h.insert(HeaderName::from_static("x-tec-total"), total.clone());
    h.insert(HeaderName::from_static("x-tec-totalpages"), pages.clone());
    h.insert(HeaderName::from_static("x-wp-total"), total);
    h.insert(HeaderName::from_static("x-wp-totalpages"), pages);
    if paging.at_least {
        h.insert(
            HeaderName::from_static(TOTAL_IS_FLOOR.0),
            HeaderValue::from_static(TOTAL_IS_FLOOR.1),
        );
    }
    let mut links = Vec::new();
    if let Some(n) = &paging.next {
        links.push(format!("<{n}>; rel=\"next\""));
    }
    if let Some(p) = &paging.previous {
        links.push(format!("<{p}>; rel=\"prev\""));
    }
    if !links.is_empty()
        && let Ok(v) = HeaderValue::from_str(&links.join(", "))
    {
        h.insert(axum::http::header::LINK, v);
    }
    Ok(resp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_put_page_last_and_drop_it_for_page_one() {
        let echo = vec![("per_page".to_string(), "5".to_string())];
        let p = Paging::new("http://x/api/events/", 2, 5, Total::exact(50), &echo, true);
        assert_eq!(p.rest_url, "http://x/api/events/?page=2&per_page=5");
        assert_eq!(
            p.next.as_deref(),
            Some("http://x/api/events/?per_page=5&page=3")
        );
        assert_eq!(
            p.previous.as_deref(),
            Some("http://x/api/events/?per_page=5")
        );
        assert_eq!(p.total_pages, 10);
    }

    #[test]
    fn empty_collection_has_zero_pages_and_no_neighbours() {
        let p = Paging::new("http://x/", 1, 10, Total::exact(0), &[], true);
        assert_eq!(p.total_pages, 0);
        assert!(p.next.is_none() && p.previous.is_none());
    }

    #[test]
    fn a_floor_total_has_a_next_page_past_its_last() {
        let p = Paging::new("http://x/", 100, 10, Total::at_least(1_000), &[], true);
        assert_eq!((p.total, p.total_pages), (1_000, 100));
        assert_eq!(p.next.as_deref(), Some("http://x/?page=101"));
        let exact = Paging::new("http://x/", 100, 10, Total::exact(1_000), &[], true);
        assert!(exact.next.is_none());
    }
}

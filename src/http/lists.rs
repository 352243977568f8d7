//! List envelopes, paging links and headers, shared by every collection.

use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use serde::Serialize;
use serde::ser::SerializeMap;

use super::error::ApiError;
use super::json::json;
use super::urls::with_query;

/// Where the page is and where the neighbours are.
pub struct Paging {
    pub total: u64,
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
        total: u64,
        echo: &[(String, String)],
        page_in_rest_url: bool,
    ) -> Paging {
        let total_pages = total.div_ceil(per_page.max(1));
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
            total,
            total_pages,
            rest_url: if page_in_rest_url {
                with_page(page, true)
            } else {
                with_query(base, echo)
            },
            next: (page < total_pages).then(|| with_page(page + 1, false)),
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
        let p = Paging::new("http://x/api/events/", 2, 5, 50, &echo, true);
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
        let p = Paging::new("http://x/", 1, 10, 0, &[], true);
        assert_eq!(p.total_pages, 0);
        assert!(p.next.is_none() && p.previous.is_none());
    }
}

//! The term representations: a category or tag as its own routes return it.

use serde::Serialize;
use utoipa::ToSchema;

use super::schema::empty_array;
use super::wire::EmptyList;
use crate::domain::term::{Taxonomy, Term};
use crate::http::live_counts::TermCount;
use crate::http::urls::Urls;

#[derive(Serialize, ToSchema)]
pub struct TermUrls {
    #[serde(rename = "self")]
    pub self_: String,
    pub collection: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub up: Option<String>,
}

impl TermUrls {
    pub fn new(term: &Term, urls: &Urls) -> TermUrls {
        let collection = term.taxonomy.collection();
        TermUrls {
            self_: urls.item(collection, term.id),
            collection: urls.collection(collection),
            up: (term.parent != 0).then(|| urls.item(collection, term.parent)),
        }
    }
}

/// A term as `/categories` and `/tags` return it.
#[derive(Serialize, ToSchema)]
#[schema(as = Term)]
pub struct TermView<'a> {
    id: i64,
    #[schema(value_type = i64)]
    count: TermCount,
    description: &'a str,
    name: &'a str,
    slug: &'a str,
    taxonomy: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<i64>,
    #[schema(schema_with = empty_array)]
    meta: EmptyList,
    url: String,
    urls: TermUrls,
}

impl<'a> TermView<'a> {
    pub fn new(term: &'a Term, urls: &Urls) -> TermView<'a> {
        TermView {
            id: term.id,
            count: TermCount {
                term: term.id,
                count: term.count,
            },
            description: &term.description,
            name: &term.name,
            slug: &term.slug,
            taxonomy: term.taxonomy.as_str(),
            parent: (term.taxonomy == Taxonomy::Category).then_some(term.parent),
            meta: EmptyList,
            url: urls.term_link(term.taxonomy, &term.slug),
            urls: TermUrls::new(term, urls),
        }
    }
}

//! Categories and tags.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taxonomy {
    Category,
    Tag,
}

impl Taxonomy {
    /// The name clients of the reference know.
    pub fn as_str(self) -> &'static str {
        match self {
            Taxonomy::Category => "tribe_events_cat",
            Taxonomy::Tag => "post_tag",
        }
    }

    /// The collection segment in API URLs.
    pub fn collection(self) -> &'static str {
        match self {
            Taxonomy::Category => "categories",
            Taxonomy::Tag => "tags",
        }
    }

    /// The public archive base of the term's front-end URL.
    pub fn archive_base(self) -> &'static str {
        match self {
            Taxonomy::Category => "events/category",
            Taxonomy::Tag => "tag",
        }
    }

    pub fn hierarchical(self) -> bool {
        self == Taxonomy::Category
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    pub id: i64,
    pub taxonomy: Taxonomy,
    pub name: String,
    pub slug: String,
    pub description: String,
    pub parent: i64,
    pub count: i64,
}

/// Values for a term create or update; `None` leaves a field as it is.
#[derive(Clone, Debug, Default)]
pub struct TermChanges {
    /// The ID a new term is created with (an import keeping its source's IDs).
    pub id: Option<i64>,
    pub name: Option<String>,
    pub slug: Option<String>,
    pub description: Option<String>,
    pub parent: Option<i64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TermOrderBy {
    Id,
    Name,
    Slug,
    Description,
    Count,
    TermGroup,
    Include,
    IncludeSlugs,
}

impl TermOrderBy {
    pub const NAMES: &'static [&'static str] = &[
        "id",
        "include",
        "name",
        "slug",
        "include_slugs",
        "term_group",
        "description",
        "count",
    ];

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "id" => Self::Id,
            "include" => Self::Include,
            "name" => Self::Name,
            "slug" => Self::Slug,
            "include_slugs" => Self::IncludeSlugs,
            "term_group" => Self::TermGroup,
            "description" => Self::Description,
            "count" => Self::Count,
            _ => return None,
        })
    }
}

/// A validated term list query.
#[derive(Clone, Debug)]
pub struct TermQuery {
    pub taxonomy: Taxonomy,
    pub page: u64,
    pub per_page: u64,
    pub search: Option<String>,
    pub include: Vec<i64>,
    pub exclude: Vec<i64>,
    pub order_desc: bool,
    pub orderby: TermOrderBy,
    pub hide_empty: bool,
    pub parent: Option<i64>,
    pub post: Option<i64>,
    pub slug: Option<String>,
}

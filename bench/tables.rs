//! Rows as driver-neutral values, so both loaders share one column list per table.

use calendar_events::domain::post::{PostType, Status};

use crate::BoxError;
use crate::rows::{EventRow, LinkedRow, Shape, Term};

#[derive(Debug)]
pub(crate) enum Val<'a> {
    Int(i64),
    OptInt(Option<i64>),
    Text(&'a str),
    OptText(Option<&'a str>),
    Bool(bool),
    OptFloat(Option<f64>),
}

impl Val<'_> {
    pub(crate) fn pg_type(&self) -> tokio_postgres::types::Type {
        use tokio_postgres::types::Type;
        match self {
            Val::Int(_) | Val::OptInt(_) => Type::INT8,
            Val::Text(_) | Val::OptText(_) => Type::TEXT,
            Val::Bool(_) => Type::BOOL,
            Val::OptFloat(_) => Type::FLOAT8,
        }
    }
}

impl rusqlite::ToSql for Val<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        match self {
            Val::Int(v) => v.to_sql(),
            Val::OptInt(v) => v.to_sql(),
            Val::Text(v) => v.to_sql(),
            Val::OptText(v) => v.to_sql(),
            Val::Bool(v) => v.to_sql(),
            Val::OptFloat(v) => v.to_sql(),
        }
    }
}

impl tokio_postgres::types::ToSql for Val<'_> {
    fn to_sql(
        &self,
        ty: &tokio_postgres::types::Type,
        out: &mut tokio_postgres::types::private::BytesMut,
    ) -> std::result::Result<tokio_postgres::types::IsNull, BoxError> {
        match self {
            Val::Int(v) => v.to_sql(ty, out),
            Val::OptInt(v) => v.to_sql(ty, out),
            Val::Text(v) => v.to_sql(ty, out),
            Val::OptText(v) => v.to_sql(ty, out),
            Val::Bool(v) => v.to_sql(ty, out),
            Val::OptFloat(v) => v.to_sql(ty, out),
        }
    }

    fn accepts(ty: &tokio_postgres::types::Type) -> bool {
        <i64 as tokio_postgres::types::ToSql>::accepts(ty)
            || <&str as tokio_postgres::types::ToSql>::accepts(ty)
            || <bool as tokio_postgres::types::ToSql>::accepts(ty)
            || <f64 as tokio_postgres::types::ToSql>::accepts(ty)
    }

    tokio_postgres::types::to_sql_checked!();
}

/// A table's columns and how to turn one of its rows into values.
pub(crate) struct Table<R> {
    pub(crate) name: &'static str,
    pub(crate) columns: &'static [&'static str],
    pub(crate) values: for<'a> fn(&'a R, &Shape) -> Vec<Val<'a>>,
}

pub(crate) const TERMS: Table<Term> = Table {
    name: "terms",
    columns: &["id", "taxonomy", "name", "slug", "description", "parent"],
    values: |t, _| {
        vec![
            Val::Int(t.id),
            Val::Text(t.taxonomy),
            Val::Text(&t.name),
            Val::Text(&t.slug),
            Val::Text(&t.description),
            Val::Int(t.parent),
        ]
    },
};

pub(crate) const LINKED: Table<LinkedRow> = Table {
    name: "posts",
    columns: &[
        "id",
        "post_type",
        "author",
        "status",
        "slug",
        "title",
        "description",
        "date_utc",
        "modified_utc",
        "address",
        "city",
        "country",
        "state",
        "zip",
        "phone",
        "stateprovince",
        "website",
        "email",
        "show_map",
        "show_map_link",
        "geo_lat",
        "geo_lng",
    ],
    values: |p, shape| {
        vec![
            Val::Int(p.id),
            Val::Text(p.post_type),
            Val::Int(shape.author),
            Val::Text(Status::Publish.as_str()),
            Val::Text(&p.slug),
            Val::Text(&p.title),
            Val::Text(&p.description),
            Val::Int(p.date_utc),
            Val::Int(p.date_utc),
            Val::Text(&p.address),
            Val::Text(&p.city),
            Val::Text(&p.country),
            Val::Text(&p.state),
            Val::Text(&p.zip),
            Val::Text(&p.phone),
            Val::Text(&p.stateprovince),
            Val::OptText(p.website.as_deref()),
            Val::Text(&p.email),
            Val::Bool(p.show_map),
            Val::Bool(p.show_map),
            Val::OptFloat(p.geo_lat),
            Val::OptFloat(p.geo_lng),
        ]
    },
};

pub(crate) const EVENTS: Table<EventRow> = Table {
    name: "posts",
    columns: &[
        "id",
        "post_type",
        "author",
        "status",
        "password",
        "slug",
        "title",
        "description",
        "excerpt",
        "date_utc",
        "modified_utc",
        "website",
        "start_utc",
        "end_utc",
        "timezone",
        "all_day",
        "cost",
        "hide_from_listings",
        "sticky",
        "featured",
        "show_map",
        "show_map_link",
        "venue_id",
        "tickets",
    ],
    values: |e, shape| {
        vec![
            Val::Int(e.id),
            Val::Text(PostType::Event.as_str()),
            Val::Int(shape.author),
            Val::Text(e.status),
            Val::Text(e.password),
            Val::Text(&e.slug),
            Val::Text(&e.title),
            Val::Text(&e.description),
            Val::Text(&e.excerpt),
            Val::Int(e.date_utc),
            Val::Int(e.modified_utc),
            Val::OptText(e.website.as_deref()),
            Val::OptInt(Some(e.start_utc)),
            Val::OptInt(Some(e.end_utc)),
            Val::Text(e.timezone),
            Val::Bool(e.all_day),
            Val::Text(&e.cost),
            Val::Bool(e.hide),
            Val::Bool(e.sticky),
            Val::Bool(e.featured),
            Val::Bool(e.show_map),
            Val::Bool(e.show_map),
            Val::OptInt(e.venue_id),
            Val::Text(&e.tickets),
        ]
    },
};

/// (event, term) pairs.
pub(crate) const TERM_LINKS: Table<(i64, i64)> = Table {
    name: "term_relationships",
    columns: &["post_id", "term_id"],
    values: |(e, t), _| vec![Val::Int(*e), Val::Int(*t)],
};

/// (event, organizer, position) triples.
pub(crate) const ORGANIZER_LINKS: Table<(i64, i64, i64)> = Table {
    name: "event_organizers",
    columns: &["event_id", "organizer_id", "position"],
    values: |(e, o, p), _| vec![Val::Int(*e), Val::Int(*o), Val::Int(*p)],
};

pub(crate) fn term_links(events: &[EventRow]) -> Vec<(i64, i64)> {
    events
        .iter()
        .flat_map(|e| e.terms.iter().map(move |t| (e.id, *t)))
        .collect()
}

pub(crate) fn organizer_links(events: &[EventRow]) -> Vec<(i64, i64, i64)> {
    events
        .iter()
        .flat_map(|e| {
            e.organizers
                .iter()
                .enumerate()
                .map(move |(p, o)| (e.id, *o, p as i64))
        })
        .collect()
}

/// Term counts as the server keeps them: published events per term, where a scheduled
/// (`future`) event whose date has passed counts as published. Counted in one grouped pass
/// into a temporary table: a correlated subquery per term made SQLite, without statistics,
/// scan every post once per term.
pub(crate) fn count_terms_sql(now: i64) -> String {
    format!(
        "CREATE TEMP TABLE bench_term_counts AS
            SELECT tr.term_id, COUNT(*) AS n
            FROM term_relationships tr JOIN posts p ON p.id = tr.post_id
            WHERE p.post_type = '{event}'
              AND (p.status = '{publish}' OR (p.status = '{future}' AND p.date_utc <= {now}))
            GROUP BY tr.term_id;
         UPDATE terms SET count = COALESCE(
            (SELECT n FROM bench_term_counts c WHERE c.term_id = terms.id), 0);
         DROP TABLE bench_term_counts;",
        event = PostType::Event.as_str(),
        publish = Status::Publish.as_str(),
        future = Status::Future.as_str(),
    )
}

pub(crate) fn count_events_sql() -> String {
    format!(
        "SELECT COUNT(*) FROM posts WHERE post_type = '{}'",
        PostType::Event.as_str()
    )
}

//! `GET /doc`: an OpenAPI 3.1 document built from the route table (paths,
//! methods, parameters, request bodies) and from the response view types
//! (schemas), through utoipa's typed model.

mod bodies;
mod changes;
mod operations;

use std::borrow::Cow;

use axum::http::{Method, StatusCode};
use axum::response::Response;
use serde_json::json;
use utoipa::ToSchema;
use utoipa::openapi::header::Header;
use utoipa::openapi::path::{
    HttpMethod, Operation, OperationBuilder, Parameter, ParameterBuilder, ParameterIn,
    ParameterStyle,
};
use utoipa::openapi::request_body::{RequestBody, RequestBodyBuilder};
use utoipa::openapi::schema::{
    AnyOfBuilder, ArrayBuilder, KnownFormat, ObjectBuilder, Schema, SchemaFormat, SchemaType, Type,
};
use utoipa::openapi::{
    ComponentsBuilder, ContentBuilder, InfoBuilder, OpenApi, OpenApiBuilder, PathItem,
    PathsBuilder, RefOr, Required, ResponseBuilder, Responses, ResponsesBuilder, ServerBuilder,
};

use super::cache::Freshness;
use super::context::Ctx;
use super::error::ApiError;
use super::json::json;
use super::views::{ErrorBody, ListSchemas, OrganizerView, TermView, VenueView};
use crate::api::i18n;
use crate::api::table::{Arg, Endpoint, Item, Kind, Location, Op, ROUTES};
use crate::domain::post::PostType;
use crate::domain::term::Taxonomy;

pub fn doc(ctx: &Ctx) -> Result<Response, ApiError> {
    let mut resp = json(
        StatusCode::OK,
        &document(
            &ctx.lang.code,
            ctx.urls.api(),
            ctx.app.settings.per_page_default,
        ),
    );
    // Nothing in it reads the clock (unlike the index, whose date defaults show
    // "now"): rebuilding ~150 KB of JSON every second cost CPU and, at its peak,
    // several MiB of memory.
    resp.extensions_mut().insert(Freshness::UntilWrite);
    Ok(resp)
}

/// The whole document for one language; `server` is the API root of the request.
pub fn document(lang: &str, server: &str, per_page_default: u64) -> OpenApi {
    let mut paths = PathsBuilder::new();
    for route in ROUTES {
        let path = if route.path.is_empty() {
            "/"
        } else {
            route.path
        };
        let mut item: Option<PathItem> = None;
        for endpoint in route.endpoints {
            for method in endpoint.methods {
                let op = operation(lang, endpoint, method, per_page_default);
                let http = http_method(method);
                item = Some(match item {
                    None => PathItem::new(http, op),
                    Some(mut existing) => {
                        existing.merge_operations(PathItem::new(http, op));
                        existing
                    }
                });
            }
        }
        if let Some(item) = item {
            paths = paths.path(path, item);
        }
    }
    OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title(i18n::text(lang, i18n::DOC_TITLE))
                .version("1.0.0")
                .description(Some(i18n::text(lang, i18n::DOC_DESCRIPTION)))
                .license(Some(
                    utoipa::openapi::LicenseBuilder::new()
                        .name("MIT")
                        .identifier(Some("MIT"))
                        .build(),
                ))
                .build(),
        )
        .servers(Some([ServerBuilder::new().url(server).build()]))
        .paths(paths.build())
        .components(Some(components(lang)))
        .build()
}

fn http_method(m: &Method) -> HttpMethod {
    match *m {
        Method::POST => HttpMethod::Post,
        Method::PUT => HttpMethod::Put,
        Method::PATCH => HttpMethod::Patch,
        Method::DELETE => HttpMethod::Delete,
        _ => HttpMethod::Get,
    }
}

fn components(lang: &str) -> utoipa::openapi::Components {
    let mut schemas: Vec<(String, RefOr<Schema>)> = Vec::new();
    fn add<T: ToSchema>(out: &mut Vec<(String, RefOr<Schema>)>) {
        out.push((T::name().into_owned(), T::schema()));
        T::schemas(out);
    }
    add::<VenueView>(&mut schemas);
    add::<OrganizerView>(&mut schemas);
    add::<TermView>(&mut schemas);
    add::<super::views::EventView>(&mut schemas);
    add::<super::views::EventList>(&mut schemas);
    add::<ErrorBody>(&mut schemas);
    ListSchemas::collect(&mut schemas);
    schemas.extend(changes::schemas());
    schemas.sort_by(|a, b| a.0.cmp(&b.0));
    schemas.dedup_by(|a, b| a.0 == b.0);
    let mut components = ComponentsBuilder::new().schemas_from_iter(schemas);
    for (name, scheme) in operations::schemes(lang) {
        components = components.security_scheme(name, scheme);
    }
    components.build()
}

fn reference(name: &str) -> RefOr<Schema> {
    RefOr::Ref(utoipa::openapi::Ref::from_schema_name(name))
}

fn typed(t: Type) -> ObjectBuilder {
    ObjectBuilder::new().schema_type(SchemaType::Type(t))
}

/// The schema of one argument as a client sends it.
fn arg_schema(a: &Arg, per_page_default: u64) -> Schema {
    let item = |i: Item| match i {
        Item::Integer => int64().build(),
        Item::String => typed(Type::String).build(),
    };
    let base = match a.kind {
        // Pages and page sizes start at 1; anything lower is a 400.
        Kind::Integer if matches!(a.name, "page" | "per_page") => int64().minimum(Some(1)),
        Kind::Integer => int64(),
        Kind::Number => {
            typed(Type::Number).format(Some(SchemaFormat::KnownFormat(KnownFormat::Double)))
        }
        Kind::DateTime => return date_time_schema(),
        // What `domain::sync::SyncCursor` prints: `0`, `<position>` or `<position>.<id>`.
        Kind::String if a.name == "cursor" => {
            typed(Type::String).pattern(Some(r"^[0-9]{1,18}(\.[0-9]{1,19})?$"))
        }
        Kind::String | Kind::Status => typed(Type::String),
        Kind::Boolean => typed(Type::Boolean),
        Kind::List(i) => {
            // Slugs are as welcome as IDs for terms; the reference declares integers.
            let i = if matches!(a.name, "categories" | "tags") {
                Item::String
            } else {
                i
            };
            return Schema::Array(
                ArrayBuilder::new()
                    .items(item(i))
                    .max_items(Some(100))
                    .build(),
            );
        }
        Kind::Any | Kind::Linked(_) => match bodies::field_schema(a.name) {
            Some(forms) => return forms,
            None => ObjectBuilder::new().schema_type(SchemaType::AnyValue),
        },
    };
    let default = match a.default {
        crate::api::table::Default::Int(i) => Some(json!(i)),
        crate::api::table::Default::Bool(b) => Some(json!(b)),
        crate::api::table::Default::Str(s) => Some(json!(s)),
        crate::api::table::Default::PerPage => Some(json!(per_page_default)),
        _ => None,
    };
    let mut b = base.default(default);
    if !a.one_of.is_empty() {
        b = b.enum_values(Some(a.one_of.iter().copied()));
    }
    Schema::Object(b.build())
}

/// A date-time argument in the forms every client can rely on: RFC 3339,
/// `YYYY-MM-DD[ HH:MM[:SS]]` (wall time in the event's or the site's zone) or a unix
/// timestamp (seconds since 1973). Simple relative English (`tomorrow 9am`) is accepted too but not promised.
fn date_time_schema() -> Schema {
    Schema::AnyOf(
        AnyOfBuilder::new()
            .item(
                typed(Type::String).format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime))),
            )
            .item(typed(Type::String).pattern(Some(
                r"^[0-9]{4}-[0-9]{2}-[0-9]{2}( [0-9]{2}:[0-9]{2}(:[0-9]{2})?)?$",
            )))
            // Nine to twelve digits: shorter numbers could be compact dates.
            .item(
                int64()
                    .minimum(Some(100_000_000))
                    .maximum(Some(999_999_999_999i64)),
            )
            .build(),
    )
}

fn int64() -> ObjectBuilder {
    typed(Type::Integer).format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
}

/// A path parameter: IDs are positive integers (the route matches digits only) and
/// slugs are non-empty runs of anything but `/`.
fn path_schema(a: &Arg) -> Schema {
    match a.kind {
        Kind::Integer => Schema::Object(int64().minimum(Some(1)).build()),
        _ => Schema::Object(
            typed(Type::String)
                .min_length(Some(1))
                .pattern(Some("^[^/]+$"))
                .build(),
        ),
    }
}

/// The schema a successful response carries.
fn success(op: Op) -> (u16, Cow<'static, str>) {
    let item = |p: PostType| match p {
        PostType::Venue => "Venue",
        _ => "Organizer",
    };
    let list = |p: PostType| match p {
        PostType::Venue => "VenueList",
        _ => "OrganizerList",
    };
    let term = |t: Taxonomy| match t {
        Taxonomy::Category => "Category",
        Taxonomy::Tag => "Tag",
    };
    match op {
        Op::Index => (200, "NamespaceIndex".into()),
        Op::Doc => (200, "OpenApiDocument".into()),
        Op::EventList => (200, "EventList".into()),
        Op::EventCreate => (201, "Event".into()),
        Op::EventGet(_) | Op::EventUpdate(_) | Op::EventDelete(_) => (200, "Event".into()),
        Op::LinkedList(p) => (200, list(p).into()),
        Op::LinkedCreate(p) => (201, item(p).into()),
        Op::LinkedGet(p, _) | Op::LinkedUpdate(p, _) | Op::LinkedDelete(p, _) => {
            (200, item(p).into())
        }
        Op::TermList(Taxonomy::Category) => (200, "CategoryList".into()),
        Op::TermList(Taxonomy::Tag) => (200, "TagList".into()),
        Op::TermCreate(t) => (201, term(t).into()),
        Op::TermGet(t) | Op::TermUpdate(t) | Op::TermDelete(t) => (200, term(t).into()),
    }
}

/// The error statuses an operation can answer with.
fn error_statuses(op: Op, method: &Method) -> Vec<u16> {
    // Any request: a wrong credential (401), the rate limit (429), the database (503).
    let mut s = vec![401, 429, 503];
    // Every operation but `/doc` takes arguments that can be invalid.
    if op != Op::Doc {
        s.push(400);
    }
    // The body of anything but GET is read and bounded.
    if *method != Method::GET {
        s.push(413);
    }
    // A stale If-Match or If-Unmodified-Since.
    if *method != Method::GET && is_conditional_write(op) {
        s.push(412);
    }
    match op {
        // An unknown `namespace`.
        Op::Index => s.push(404),
        // A sync cursor from before the tombstones still kept.
        Op::TermList(_) => s.push(410),
        Op::Doc => {}
        // A page past the last one; a stale sync cursor.
        Op::EventList | Op::LinkedList(_) => s.extend([404, 410]),
        // Trashed posts answer 410 to a second delete.
        Op::EventDelete(_) | Op::LinkedDelete(..) => s.extend([403, 410]),
        _ => s.push(403),
    }
    // An `{id}` that is not all digits (or an empty slug) matches no route, as in the
    // reference (`(?P<id>\d+)`): a 404 `rest_no_route`.
    if has_path_argument(op) {
        s.push(404);
    }
    s.sort_unstable();
    s.dedup();
    s
}

fn has_path_argument(op: Op) -> bool {
    matches!(
        op,
        Op::EventGet(_)
            | Op::EventUpdate(_)
            | Op::EventDelete(_)
            | Op::LinkedGet(..)
            | Op::LinkedUpdate(..)
            | Op::LinkedDelete(..)
            | Op::TermGet(_)
            | Op::TermUpdate(_)
            | Op::TermDelete(_)
    )
}

fn operation(lang: &str, endpoint: &Endpoint, method: &Method, per_page_default: u64) -> Operation {
    let mut b = OperationBuilder::new()
        .operation_id(Some(operations::operation_id(endpoint.op, method)))
        .summary(Some(operations::summary(lang, endpoint.op)))
        .securities(Some(operations::security(method)));
    let write = matches!(*method, Method::POST | Method::PUT | Method::PATCH);
    let mut body = ObjectBuilder::new().schema_type(SchemaType::Type(Type::Object));
    let mut has_body = false;
    for a in endpoint.args {
        let description = Some(i18n::text(lang, a.description));
        match a.location {
            Location::Path => b = b.parameter(path_parameter(a, description)),
            Location::Param if write => {
                has_body = true;
                let mut prop = arg_schema(a, per_page_default);
                match &mut prop {
                    Schema::Object(o) => o.description = description,
                    Schema::AnyOf(o) => o.description = description,
                    _ => {}
                }
                body = body.property(a.name, prop);
                if a.required {
                    body = body.required(a.name);
                }
            }
            Location::Param => {
                b = b.parameter(query_parameter(a, description, per_page_default));
            }
        }
    }
    if has_body {
        let example = bodies::example(endpoint.op);
        b = b.request_body(Some(request_body(Schema::Object(body.build()), example)));
    }
    for p in conditional_parameters(lang, endpoint.op, method) {
        b = b.parameter(p);
    }
    b.responses(responses(lang, endpoint, method)).build()
}

/// The event reads that answer iCalendar too (`?ical=1`, `Accept: text/calendar`).
fn has_calendar(op: Op) -> bool {
    matches!(op, Op::EventList | Op::EventGet(_))
}

/// Writes of one existing resource: those `If-Match` makes conditional.
fn is_conditional_write(op: Op) -> bool {
    matches!(
        op,
        Op::EventUpdate(_)
            | Op::EventDelete(_)
            | Op::LinkedUpdate(..)
            | Op::LinkedDelete(..)
            | Op::TermUpdate(_)
            | Op::TermDelete(_)
    )
}

/// `ical` for the event reads, and the conditional-request headers (RFC 9110 §13):
/// `If-None-Match` on reads, `If-Match`/`If-Unmodified-Since` on writes of one resource.
fn conditional_parameters(lang: &str, op: Op, method: &Method) -> Vec<Parameter> {
    let param = |name: &str, at: ParameterIn, key: &str, schema: Schema| {
        ParameterBuilder::new()
            .name(name)
            .parameter_in(at)
            .required(Required::False)
            .description(Some(i18n::text(lang, key)))
            .schema(Some(schema))
            .build()
    };
    let text = || Schema::Object(typed(Type::String).build());
    let mut out = Vec::new();
    if *method == Method::GET {
        if has_calendar(op) {
            let flag = Schema::Object(typed(Type::Boolean).build());
            out.push(param("ical", ParameterIn::Query, i18n::DOC_ICAL, flag));
        }
        out.push(param(
            "If-None-Match",
            ParameterIn::Header,
            i18n::DOC_IF_NONE_MATCH,
            text(),
        ));
    } else if is_conditional_write(op) {
        out.push(param(
            "If-Match",
            ParameterIn::Header,
            i18n::DOC_IF_MATCH,
            text(),
        ));
        out.push(param(
            "If-Unmodified-Since",
            ParameterIn::Header,
            i18n::DOC_IF_UNMODIFIED_SINCE,
            text(),
        ));
    }
    out
}

fn path_parameter(a: &Arg, description: Option<String>) -> Parameter {
    ParameterBuilder::new()
        .name(a.name)
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .description(description)
        .schema(Some(path_schema(a)))
        .build()
}

fn query_parameter(a: &Arg, description: Option<String>, per_page_default: u64) -> Parameter {
    let is_list = matches!(a.kind, Kind::List(_));
    ParameterBuilder::new()
        .name(a.name)
        .parameter_in(ParameterIn::Query)
        .required(if a.required {
            Required::True
        } else {
            Required::False
        })
        .description(description)
        .schema(Some(arg_schema(a, per_page_default)))
        .style(is_list.then_some(ParameterStyle::Form))
        // Repeated keys (`categories=1&categories=2`): what every generator
        // sends; CSV and `categories[]=` work as well.
        .explode(is_list.then_some(true))
        .build()
}

/// A write's body, as JSON or as a form.
fn request_body(schema: Schema, example: Option<serde_json::Value>) -> RequestBody {
    RequestBodyBuilder::new()
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(schema.clone()))
                .example(example)
                .build(),
        )
        .content(
            "application/x-www-form-urlencoded",
            ContentBuilder::new().schema(Some(schema)).build(),
        )
        .build()
}

/// The totals every list sends, the RFC 8288 links to its neighbours, its sync
/// cursor and, for lists that may count up to a floor, whether they did.
fn list_headers(lang: &str, op: Op, mut ok: ResponseBuilder) -> ResponseBuilder {
    if !matches!(op, Op::EventList | Op::LinkedList(_) | Op::TermList(_)) {
        return ok;
    }
    // The totals every list sends, and the RFC 8288 links to its neighbours.
    for name in [
        "X-TEC-Total",
        "X-TEC-TotalPages",
        "X-WP-Total",
        "X-WP-TotalPages",
    ] {
        ok = ok.header(
            name,
            Header::new(typed(Type::Integer).minimum(Some(0)).build()),
        );
    }
    ok = ok.header("Link", Header::new(typed(Type::String).build()));
    let mut cursor = Header::new(typed(Type::String).build());
    cursor.description = Some(i18n::text(lang, i18n::DOC_SYNC_CURSOR));
    ok = ok.header("X-Calendar-Events-Cursor", cursor);
    if matches!(op, Op::EventList | Op::LinkedList(_)) {
        let mut floor = Header::new(
            typed(Type::String)
                .enum_values(Some([crate::http::lists::TOTAL_IS_FLOOR.1]))
                .build(),
        );
        floor.description = Some(i18n::text(lang, i18n::DOC_TOTAL_FLOOR));
        ok = ok.header("X-Calendar-Total", floor);
    }
    ok
}

/// The success response and every error response an operation can give.
fn responses(lang: &str, endpoint: &Endpoint, method: &Method) -> Responses {
    let (status, schema) = success(endpoint.op);
    // A list answers changes instead when asked with `modified_after` or `cursor`.
    let body = match changes::changes_schema_name(endpoint.op) {
        Some(changes) => RefOr::T(Schema::AnyOf(
            AnyOfBuilder::new()
                .item(reference(&schema))
                .item(reference(changes))
                .build(),
        )),
        None => reference(&schema),
    };
    let mut ok = ResponseBuilder::new()
        .description(i18n::text(lang, i18n::DOC_RESPONSE_SUCCESS))
        .content(
            "application/json",
            ContentBuilder::new().schema(Some(body)).build(),
        );
    ok = list_headers(lang, endpoint.op, ok);
    let read = *method == Method::GET;
    if read {
        let mut etag = Header::new(typed(Type::String).build());
        etag.description = Some(i18n::text(lang, i18n::DOC_ETAG));
        ok = ok.header("ETag", etag);
    }
    if read && has_calendar(endpoint.op) {
        let calendar = typed(Type::String).description(Some(i18n::text(lang, i18n::DOC_CALENDAR)));
        ok = ok.content(
            "text/calendar",
            ContentBuilder::new()
                .schema(Some(Schema::Object(calendar.build())))
                .build(),
        );
    }
    let mut responses = ResponsesBuilder::new().response(status.to_string(), ok.build());
    if read {
        responses = responses.response(
            "304",
            ResponseBuilder::new()
                .description(i18n::text(lang, i18n::DOC_NOT_MODIFIED))
                .build(),
        );
    }
    for code in error_statuses(endpoint.op, method) {
        responses = responses.response(
            code.to_string(),
            ResponseBuilder::new()
                .description(i18n::text(lang, i18n::DOC_RESPONSE_ERROR))
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(reference("Error")))
                        .build(),
                )
                .build(),
        );
    }
    responses.build()
}

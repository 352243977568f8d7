//! Request arguments: gathered from path, query and body, then checked against
//! the endpoint's declared arguments (WordPress's "missing, then invalid" order).

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::i18n::{self, Msg};
use super::table::{Arg, Default, Endpoint, Item, Kind, Location};
pub use crate::domain::args::Val;
use crate::domain::args::{ArgSource, TypedArgs};
pub use crate::domain::validation::{Invalid, Reason};

/// Bounds on what one request's arguments may hold.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// `per_page` when a list request names none.
    pub per_page_default: u64,
    /// Longest string accepted in any argument.
    pub max_string_bytes: usize,
    /// Most items in any list argument (and members in any object).
    pub max_list_items: usize,
    /// Deepest nesting of untyped values (inline venues, tickets, …).
    pub max_depth: usize,
}

impl std::default::Default for Limits {
    fn default() -> Limits {
        Limits {
            per_page_default: 10,
            max_string_bytes: 64 * 1024,
            max_list_items: 100,
            max_depth: 4,
        }
    }
}

/// The message, in `lang`, about parameter `name` refused for `reason`.
pub fn reason_message(reason: &Reason, lang: &str, name: &str) -> String {
    let param = || ("param", name.to_string());
    match reason {
        Reason::Generic => i18n::text(lang, Msg::InvalidParameter.key()),
        Reason::NotOfType(ty) => i18n::message(
            lang,
            Msg::NotOfType.key(),
            &[param(), ("type", (*ty).into())],
        ),
        Reason::TooLong(max) => i18n::message(
            lang,
            Msg::TooLong.key(),
            &[param(), ("max", max.to_string())],
        ),
        Reason::TooManyItems(max) => i18n::message(
            lang,
            Msg::TooManyItems.key(),
            &[param(), ("max", max.to_string())],
        ),
        Reason::NotInEnum(values) => i18n::message(
            lang,
            Msg::NotInEnum.key(),
            &[param(), ("values", values.join(", "))],
        ),
        Reason::TooDeep => i18n::message(lang, Msg::TooDeep.key(), &[param()]),
        Reason::PastSearchDepth(depth) => i18n::message(
            lang,
            Msg::SearchTooDeep.key(),
            &[("depth", depth.to_string())],
        ),
        Reason::Rule { msg, .. } => i18n::text(lang, msg.key()),
    }
}

#[derive(Debug, PartialEq)]
pub enum ArgError {
    Missing(Vec<&'static str>),
    Invalid(Vec<Invalid>),
}

/// Arguments as they arrived, before checking.
#[derive(Debug, Default)]
pub struct RawArgs {
    pub path: HashMap<&'static str, String>,
    /// Query and body merged; the body wins.
    pub params: Map<String, Value>,
}

/// Checked arguments of one request.
#[derive(Debug, Default)]
pub struct Args {
    path: HashMap<&'static str, Val>,
    values: HashMap<&'static str, Val>,
    /// Names the request itself carried, as opposed to filled-in defaults.
    given: Vec<&'static str>,
    /// The arguments refused by their declared type or bounds; they have no value here.
    invalid: Vec<Invalid>,
}

impl ArgSource for Args {
    fn value(&self, name: &str) -> Option<&Val> {
        self.values.get(name)
    }

    fn given(&self, name: &str) -> bool {
        self.was_given(name)
    }
}

impl Args {
    /// The arguments as the endpoint's typed struct.
    pub fn typed<T: TypedArgs>(&self) -> T {
        T::from_source(self)
    }

    /// The arguments refused by their declaration, for the handler to report with
    /// the ones its own checks refuse.
    pub fn invalid(&self) -> &[Invalid] {
        &self.invalid
    }

    /// True when the request carried the argument, not just its default.
    /// The names the request itself carried.
    pub fn given(&self) -> &[&'static str] {
        &self.given
    }

    pub fn was_given(&self, name: &str) -> bool {
        self.given.contains(&name)
    }

    pub fn path_int(&self, name: &str) -> Option<i64> {
        match self.path.get(name) {
            Some(Val::Int(i)) => Some(*i),
            _ => None,
        }
    }

    pub fn path_str(&self, name: &str) -> Option<&str> {
        match self.path.get(name) {
            Some(Val::Str(s)) => Some(s),
            _ => None,
        }
    }
}

/// Parses a query string or form body, PHP-style: `a[]=1&a[]=2` is a list and
/// `v[city]=X` an object. A repeated plain name keeps its last value, as in PHP,
/// unless `is_list(name)`: then every value counts (`categories=3&categories=1`
/// is `3,1`), because generated OpenAPI clients send arrays that way.
pub fn parse_form(input: &str, is_list: impl Fn(&str) -> bool) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in form_urlencoded::parse(input.as_bytes()) {
        let value = Value::String(value.into_owned());
        match key.split_once('[') {
            Some((name, rest)) if rest.ends_with(']') && !name.is_empty() => {
                let inner = &rest[..rest.len() - 1];
                let slot = out.entry(name.to_string());
                if inner.is_empty() {
                    let entry = slot.or_insert_with(|| Value::Array(Vec::new()));
                    if !entry.is_array() {
                        *entry = Value::Array(Vec::new());
                    }
                    if let Value::Array(a) = entry {
                        a.push(value);
                    }
                } else {
                    let entry = slot.or_insert_with(|| Value::Object(Map::new()));
                    if !entry.is_object() {
                        *entry = Value::Object(Map::new());
                    }
                    if let Value::Object(o) = entry {
                        o.insert(inner.to_string(), value);
                    }
                }
            }
            _ => {
                let repeated = match out.get_mut(key.as_ref()) {
                    Some(Value::String(earlier)) if is_list(&key) => earlier,
                    Some(Value::Array(earlier)) if is_list(&key) => {
                        earlier.push(value);
                        continue;
                    }
                    _ => {
                        out.insert(key.into_owned(), value);
                        continue;
                    }
                };
                if let Value::String(v) = value {
                    repeated.push(',');
                    repeated.push_str(&v);
                }
            }
        }
    }
    out
}

/// Checks raw arguments against an endpoint's declaration: first every required
/// argument must be present, then every present one must be valid.
pub fn check(endpoint: &Endpoint, raw: RawArgs, limits: &Limits) -> Result<Args, ArgError> {
    let args = check_present(endpoint, raw, limits)?;
    if args.invalid.is_empty() {
        Ok(args)
    } else {
        Err(ArgError::Invalid(args.invalid))
    }
}

/// Like [`check`], but the arguments refused by their declaration come back in
/// [`Args::invalid`] rather than as an error, so that a handler can add those its
/// own checks refuse and answer every one in one 400, as WordPress does.
pub fn check_present(endpoint: &Endpoint, raw: RawArgs, limits: &Limits) -> Result<Args, ArgError> {
    let mut args = Args::default();
    let mut missing = Vec::new();
    let mut invalid = Vec::new();

    for spec in endpoint
        .args
        .iter()
        .filter(|a| a.location == Location::Path)
    {
        if let Some(v) = raw.path.get(spec.name) {
            match coerce(spec, limits, &Value::String(v.clone())) {
                Ok(val) => {
                    args.path.insert(spec.name, val);
                }
                Err(e) => invalid.push(e),
            }
        }
    }

    for spec in endpoint
        .args
        .iter()
        .filter(|a| a.location == Location::Param)
    {
        match raw.params.get(spec.name) {
            None | Some(Value::Null) => {
                if spec.required {
                    missing.push(spec.name);
                } else if let Some(val) = default_value(spec, limits.per_page_default) {
                    args.values.insert(spec.name, val);
                }
            }
            Some(v) => match coerce(spec, limits, v) {
                Ok(val) => {
                    args.values.insert(spec.name, val);
                    args.given.push(spec.name);
                }
                Err(e) => invalid.push(e),
            },
        }
    }

    if !missing.is_empty() {
        return Err(ArgError::Missing(missing));
    }
    args.invalid = invalid;
    Ok(args)
}

fn default_value(spec: &Arg, per_page_default: u64) -> Option<Val> {
    match spec.default {
        Default::Int(i) => Some(if spec.kind == Kind::Number {
            Val::Num(i as f64)
        } else {
            Val::Int(i)
        }),
        Default::Bool(b) => Some(Val::Bool(b)),
        Default::Str(s) => Some(Val::Str(s.to_string())),
        Default::PerPage => Some(Val::Int(per_page_default as i64)),
        // Dynamic and null defaults are the handler's business.
        Default::None | Default::Null | Default::Now | Default::InTwoYears | Default::Namespace => {
            None
        }
    }
}

fn invalid(spec: &Arg, reason: Reason) -> Invalid {
    Invalid {
        name: spec.name.to_string(),
        reason,
    }
}

fn type_error(spec: &Arg, ty: &'static str) -> Invalid {
    invalid(spec, Reason::NotOfType(ty))
}

/// Bounds every string an argument carries, and refuses NUL characters: no field has a
/// use for them, and PostgreSQL cannot store them in text.
fn check_text(spec: &Arg, limits: &Limits, s: &str) -> Result<(), Invalid> {
    if s.len() > limits.max_string_bytes {
        return Err(invalid(spec, Reason::TooLong(limits.max_string_bytes)));
    }
    if s.contains('\0') {
        return Err(invalid(spec, Reason::Generic));
    }
    Ok(())
}

/// A scalar JSON value as text; `None` for arrays and objects.
fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(true) => Some("1".into()),
        Value::Bool(false) => Some(String::new()),
        _ => None,
    }
}

pub use crate::domain::args::parse_bool;

fn parse_int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
                .map(|f| f as i64)
        }),
        Value::String(s) => {
            let t = s.trim();
            let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            t.parse().ok()
        }
        _ => None,
    }
}

fn parse_num(v: &Value) -> Option<f64> {
    let n = match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    }?;
    n.is_finite().then_some(n)
}

/// Splits a list argument: a JSON array of scalars, a CSV string, or one scalar.
fn parse_list(v: &Value) -> Option<Vec<String>> {
    let items: Vec<String> = match v {
        Value::Array(a) => a.iter().map(scalar_text).collect::<Option<Vec<_>>>()?,
        Value::String(s) => s.split(',').map(str::to_string).collect(),
        Value::Number(n) => vec![n.to_string()],
        _ => return None,
    };
    Some(
        items
            .into_iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
    )
}

fn coerce(spec: &Arg, limits: &Limits, v: &Value) -> Result<Val, Invalid> {
    let val = match spec.kind {
        Kind::Integer => Val::Int(parse_int(v).ok_or_else(|| type_error(spec, "integer"))?),
        Kind::Number => Val::Num(parse_num(v).ok_or_else(|| type_error(spec, "number"))?),
        Kind::Boolean => Val::Bool(parse_bool(v).ok_or_else(|| type_error(spec, "boolean"))?),
        // A number, boolean, array or object where text is declared is refused, as
        // WordPress's schema validation refuses it: `"title": 123` is a mistake.
        Kind::String => {
            let Value::String(s) = v else {
                return Err(type_error(spec, "string"));
            };
            check_text(spec, limits, s)?;
            Val::Str(s.clone())
        }
        // Unix timestamps may come as JSON numbers.
        Kind::DateTime => {
            let s = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => return Err(type_error(spec, "string")),
            };
            check_text(spec, limits, &s)?;
            Val::Str(s)
        }
        Kind::Status => {
            let items = parse_list(v).ok_or_else(|| type_error(spec, "string"))?;
            Val::List(items)
        }
        Kind::List(item) => {
            let items = parse_list(v).ok_or_else(|| type_error(spec, "array"))?;
            if item == Item::Integer && spec.name == "include" {
                // `include` and `exclude` are IDs only; slugs make sense nowhere there.
                if items
                    .iter()
                    .any(|i| parse_int(&Value::String(i.clone())).is_none_or(|n| n <= 0))
                {
                    return Err(invalid(spec, Reason::Generic));
                }
            }
            Val::List(items)
        }
        Kind::Any | Kind::Linked(_) => Val::Raw(v.clone()),
    };
    match &val {
        Val::List(items) => {
            if items.len() > limits.max_list_items {
                return Err(invalid(spec, Reason::TooManyItems(limits.max_list_items)));
            }
            for i in items {
                check_text(spec, limits, i)?;
            }
        }
        Val::Raw(raw) => check_raw_size(spec, limits, raw, 0)?,
        _ => {}
    }
    if !spec.one_of.is_empty()
        && let Val::Str(s) = &val
        && !spec.one_of.contains(&s.as_str())
    {
        return Err(invalid(spec, Reason::NotInEnum(spec.one_of)));
    }
    Ok(val)
}

/// Bounds untyped values: string lengths, list lengths and nesting depth.
fn check_raw_size(spec: &Arg, limits: &Limits, v: &Value, depth: usize) -> Result<(), Invalid> {
    if depth > limits.max_depth {
        return Err(invalid(spec, Reason::TooDeep));
    }
    match v {
        Value::String(s) => check_text(spec, limits, s),
        Value::Array(a) => {
            if a.len() > limits.max_list_items {
                return Err(invalid(spec, Reason::TooManyItems(limits.max_list_items)));
            }
            a.iter()
                .try_for_each(|x| check_raw_size(spec, limits, x, depth + 1))
        }
        Value::Object(o) => {
            if o.len() > limits.max_list_items {
                return Err(invalid(spec, Reason::TooManyItems(limits.max_list_items)));
            }
            o.iter().try_for_each(|(k, x)| {
                check_text(spec, limits, k)?;
                check_raw_size(spec, limits, x, depth + 1)
            })
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn php_style_brackets_make_lists_and_objects() {
        let m = parse_form("a[]=1&a[]=2&v[city]=Paris&v[venue]=X&p=1&p=2", |_| false);
        assert_eq!(m["a"], json!(["1", "2"]));
        assert_eq!(m["v"], json!({"city": "Paris", "venue": "X"}));
        assert_eq!(m["p"], json!("2"));
    }

    #[test]
    fn repeated_list_names_keep_every_value() {
        let lists = |name: &str| name == "c" || name == "a";
        let m = parse_form("c=3&c=1,2&p=1&p=2&a[]=1&a=2", lists);
        assert_eq!(m["c"], json!("3,1,2"));
        assert_eq!(m["p"], json!("2"), "a scalar keeps its last value");
        assert_eq!(m["a"], json!(["1", "2"]));
    }

    #[test]
    fn booleans_accept_the_usual_spellings() {
        for t in [
            json!(true),
            json!(1),
            json!("true"),
            json!("yes"),
            json!("1"),
        ] {
            assert_eq!(parse_bool(&t), Some(true), "{t}");
        }
        for f in [
            json!(false),
            json!(0),
            json!("false"),
            json!("no"),
            json!("0"),
        ] {
            assert_eq!(parse_bool(&f), Some(false), "{f}");
        }
        assert_eq!(parse_bool(&json!("maybe")), None);
    }

    #[test]
    fn integers_reject_words_and_fractions() {
        assert_eq!(parse_int(&json!("42")), Some(42));
        assert_eq!(parse_int(&json!(" 7 ")), Some(7));
        assert_eq!(parse_int(&json!("abc")), None);
        assert_eq!(parse_int(&json!(1.5)), None);
        assert_eq!(parse_int(&json!("99999999999999999999")), None);
    }

    /// An optional argument `x` of this kind.
    fn spec(kind: Kind) -> Arg {
        Arg {
            name: "x",
            kind,
            required: false,
            default: Default::None,
            one_of: &[],
            location: Location::Param,
            description: "",
        }
    }

    #[test]
    fn nul_characters_are_refused_wherever_text_goes() {
        for (kind, v) in [
            (Kind::String, json!("a\0b")),
            (Kind::DateTime, json!("2030-01-01\0")),
            (Kind::List(Item::String), json!(["ok", "a\0"])),
            (Kind::Any, json!({"venue": "a\0"})),
            (Kind::Any, json!({"a\0": 1})),
        ] {
            assert_eq!(
                coerce(&spec(kind), &Limits::default(), &v).map_err(|e| e.reason),
                Err(Reason::Generic),
                "{v}"
            );
        }
        assert!(coerce(&spec(Kind::String), &Limits::default(), &json!("fine")).is_ok());
    }

    #[test]
    fn text_is_text_and_dates_may_be_timestamps() {
        let limits = Limits::default();
        for v in [
            json!(123),
            json!(1.5),
            json!(true),
            json!(["a"]),
            json!({"a": 1}),
        ] {
            let refused = coerce(&spec(Kind::String), &limits, &v).map_err(|e| e.reason);
            assert_eq!(refused, Err(Reason::NotOfType("string")), "{v}");
        }
        assert_eq!(
            coerce(&spec(Kind::DateTime), &limits, &json!(1_700_000_000)),
            Ok(Val::Str("1700000000".into()))
        );
        assert!(coerce(&spec(Kind::DateTime), &limits, &json!(true)).is_err());
        assert_eq!(
            coerce(&spec(Kind::Integer), &limits, &json!("42")),
            Ok(Val::Int(42)),
            "integers keep their lenient forms"
        );
        assert_eq!(
            coerce(&spec(Kind::Boolean), &limits, &json!("yes")),
            Ok(Val::Bool(true)),
            "booleans keep their lenient forms"
        );
    }

    #[test]
    fn lists_come_from_arrays_or_csv() {
        assert_eq!(
            parse_list(&json!("a, b,,c")),
            Some(vec!["a".into(), "b".into(), "c".into()])
        );
        assert_eq!(
            parse_list(&json!([1, "x"])),
            Some(vec!["1".into(), "x".into()])
        );
        assert_eq!(parse_list(&json!({"a": 1})), None);
    }
}

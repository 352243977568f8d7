//! Arguments are checked as WordPress checks them: every invalid one reported in
//! one 400, declared types enforced, and dates refused rather than moved.

mod common;

use common::*;
use serde_json::{Value, json};

fn invalid_params(r: &Resp) -> Vec<String> {
    r.assert_error(400, "rest_invalid_param");
    let mut names: Vec<String> = r.body["data"]["params"]
        .as_object()
        .unwrap_or_else(|| panic!("no params in {}", r.text))
        .keys()
        .cloned()
        .collect();
    names.sort();
    names
}

both!(
    every_invalid_argument_of_a_write_is_reported,
    |app| async move {
        let base = event("E", "2027-01-01 10:00:00", "2027-01-01 11:00:00");
        let cases: [(&str, Value, &[&str]); 4] = [
            (
                "events",
                with(
                    base.clone(),
                    json!({"start_date": "not a date", "website": "not a url"}),
                ),
                &["start_date", "website"],
            ),
            (
                "events",
                with(
                    base.clone(),
                    json!({"timezone": "Mars/Olympus", "end_date": "nope", "show_map": "maybe",
                       "status": "bogus", "tickets": 5, "categories": [999999]}),
                ),
                &[
                    "categories",
                    "end_date",
                    "show_map",
                    "status",
                    "tickets",
                    "timezone",
                ],
            ),
            (
                "venues",
                json!({"venue": "V", "website": "not a url", "geo_lat": 95, "author": 999999}),
                &["author", "geo_lat", "website"],
            ),
            (
                "organizers",
                json!({"organizer": "O", "email": "nope", "date": "never", "status": 3}),
                &["date", "email", "status"],
            ),
        ];
        for (path, body, expected) in cases {
            let r = app.post(path, body.clone()).await;
            assert_eq!(invalid_params(&r), expected, "{path} {body}");
        }
        let r = app
            .post(
                "categories",
                json!({"name": "", "slug": "!!!", "parent": 999999}),
            )
            .await;
        assert_eq!(invalid_params(&r), ["name", "parent", "slug"]);
        // Lists report every invalid filter too.
        let r = app
        .get("events?start_date=nope&categories=nope&per_page=0&geoloc_lat=100&geoloc_lng=0&featured=maybe")
        .await;
        assert_eq!(
            invalid_params(&r),
            [
                "categories",
                "featured",
                "geoloc_lat",
                "per_page",
                "start_date"
            ]
        );
        let r = app.get("venues?page=0&search=%20&event=999999").await;
        assert_eq!(invalid_params(&r), ["event", "page", "search"]);
        // Missing arguments still come first, on their own.
        let r = app
            .post("events", json!({"title": "T", "website": "not a url"}))
            .await;
        r.assert_error(400, "rest_missing_callback_param");
    }
);

both!(
    an_invalid_update_changes_nothing_and_says_all,
    |app| async move {
        let id = app
            .event(event("Kept", "2027-01-01 10:00:00", "2027-01-01 11:00:00"))
            .await;
        let r = app
        .post(
            &format!("events/{id}"),
            json!({"title": "Changed", "start_date": "x", "end_date": "nope", "cost": {"a": 1}}),
        )
        .await;
        assert_eq!(invalid_params(&r), ["cost", "end_date", "start_date"]);
        assert_eq!(app.get(&format!("events/{id}")).await.body["title"], "Kept");
    }
);

both!(
    text_fields_refuse_numbers_arrays_and_objects,
    |app| async move {
        let base = event("E", "2027-01-01 10:00:00", "2027-01-01 11:00:00");
        for (field, value) in [
            ("title", json!(123)),
            ("title", json!(true)),
            ("description", json!(["a"])),
            ("slug", json!({"a": "b"})),
            ("timezone", json!(1)),
            ("excerpt", json!(1.5)),
        ] {
            let mut body = base.clone();
            body[field] = value.clone();
            let r = app.post("events", body).await;
            assert_eq!(invalid_params(&r), [field], "{field}: {value}");
            assert_eq!(
                r.body["data"]["details"][field]["code"],
                "rest_invalid_type"
            );
        }
        for (path, body, field) in [
            ("venues", json!({"venue": 5}), "venue"),
            ("venues", json!({"venue": "V", "zip": 75001}), "zip"),
            (
                "organizers",
                json!({"organizer": "O", "phone": 5551234}),
                "phone",
            ),
            ("categories", json!({"name": 7}), "name"),
        ] {
            let r = app.post(path, body).await;
            assert_eq!(invalid_params(&r), [field], "{path}");
        }
        // Integers, booleans and timestamps keep their documented lenient forms.
        let r = app
            .post(
                "events",
                json!({"title": "Lenient", "start_date": 1_800_000_000, "end_date": "1800003600",
                   "featured": "yes", "all_day": 0, "post_parent": "0"}),
            )
            .await;
        r.assert(201);
        assert_eq!(r.body["featured"], true);
        assert_eq!(r.body["utc_start_date"], "2027-01-15 08:00:00");
    }
);

both!(
    dates_that_cannot_be_stored_are_refused_not_moved,
    |app| async move {
        for bad in ["-0001-01-01", "-99999999999", "+10000-01-01", "10000-01-01"] {
            let r = app
                .post("events", event("E", bad, "2027-01-01 11:00:00"))
                .await;
            assert_eq!(invalid_params(&r), ["start_date"], "{bad}");
            let r = app
                .post(
                    "events",
                    with(
                        event("E", "2027-01-01 10:00:00", "2027-01-01 11:00:00"),
                        json!({"date": bad}),
                    ),
                )
                .await;
            assert_eq!(invalid_params(&r), ["date"], "{bad}");
            let r = app
                .get(&format!("events?start_date={}", bad.replace('+', "%2B")))
                .await;
            assert_eq!(invalid_params(&r), ["start_date"], "filter {bad}");
        }
        let r = app
            .post(
                "events",
                event("Far", "9999-12-30 10:00:00", "9999-12-31 23:59:59"),
            )
            .await;
        r.assert(201);
        assert_eq!(r.body["end_date"], "9999-12-31 23:59:59");
        let r = app
            .post(
                "events",
                event("Early", "0001-01-01 00:00:00", "0001-01-01 01:00:00"),
            )
            .await;
        r.assert(201);
        assert_eq!(r.body["start_date"], "0001-01-01 00:00:00");
    }
);

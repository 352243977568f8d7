use serde_json::json;

use super::*;

/// 2026-11-22 08:30:00 UTC.
const NOW: i64 = 1_795_336_200;

fn no_inline(_: PostType, _: &Map<String, Value>) -> Result<LinkedDraft, ()> {
    Err(())
}

fn read_new(args: &EventWriteArgs) -> (EventDraft, Vec<String>) {
    let cx = WriteContext {
        now: NOW,
        site: chrono_tz::Europe::Paris,
        existing: None,
    };
    let mut p = Problems::default();
    let d = read(args, cx, &no_inline, &mut p);
    let names = p
        .finish::<Vec<Invalid>>()
        .err()
        .unwrap_or_default()
        .into_iter()
        .map(|i| i.name)
        .collect();
    (d, names)
}

fn event(start: &str, end: &str) -> EventWriteArgs {
    EventWriteArgs {
        title: Some("E".into()),
        start_date: Some(start.into()),
        end_date: Some(end.into()),
        ..EventWriteArgs::default()
    }
}

#[test]
fn dates_are_wall_time_in_the_site_zone_and_all_day_widens_them() {
    let (d, invalid) = read_new(&event("2027-07-05 10:00:00", "2027-07-05 12:00:00"));
    assert!(invalid.is_empty(), "{invalid:?}");
    assert_eq!(d.changes.start_utc, Some(1_814_774_400));
    assert_eq!(d.changes.timezone.as_deref(), Some("Europe/Paris"));
    assert_eq!(d.changes.all_day, Some(false), "false on a create");
    let mut all_day = event("2027-07-05 10:00:00", "2027-07-06 12:00:00");
    all_day.all_day = Some(true);
    let (d, _) = read_new(&all_day);
    assert_eq!(d.changes.start_utc, Some(1_814_738_400), "00:00 Paris");
    assert_eq!(d.changes.end_utc, Some(1_814_911_199), "23:59:59 Paris");
}

#[test]
fn every_invalid_field_is_noted() {
    let mut a = event("nope", "2027-01-01 10:00:00");
    a.title = Some("  <b></b> ".into());
    a.status = Some("bogus".into());
    a.website = Some(json!("not a url"));
    a.cost = Some(json!({"a": 1}));
    a.tickets = Some(json!(5));
    a.venue = Some(json!([1, 2]));
    a.timezone = Some("Mars/Olympus".into());
    let (_, invalid) = read_new(&a);
    assert_eq!(
        invalid,
        [
            "title",
            "status",
            "timezone",
            "start_date",
            "cost",
            "website",
            "tickets",
            "venue"
        ]
    );
}

#[test]
fn an_end_before_the_start_is_refused() {
    let (_, invalid) = read_new(&event("2027-01-02", "2027-01-01"));
    assert_eq!(invalid, ["end_date"]);
}

#[test]
fn links_are_read_as_keys_ids_or_inline_fields() {
    let mut a = event("2027-01-01 10:00:00", "2027-01-01 11:00:00");
    a.categories = Some(json!("music, 7 ,,"));
    a.tags = Some(json!([{"name": "Free"}, 3]));
    a.organizer = Some(json!([5, "6", {"id": 7}, {"organizer": "New"}]));
    a.venue = Some(json!(0));
    let inline = |t: PostType, fields: &Map<String, Value>| -> Result<LinkedDraft, ()> {
        assert_eq!(t, PostType::Organizer);
        let mut draft = LinkedDraft::default();
        draft.changes.title = fields["organizer"].as_str().map(str::to_string);
        Ok(draft)
    };
    let cx = WriteContext {
        now: NOW,
        site: Tz::UTC,
        existing: None,
    };
    let mut p = Problems::default();
    let d = read(&a, cx, &inline, &mut p);
    assert!(p.is_empty());
    assert_eq!(d.categories, Some(vec!["music".to_string(), "7".into()]));
    assert_eq!(d.tags, Some(vec!["Free".to_string(), "3".into()]));
    assert!(matches!(d.venue, Some(None)), "0 unlinks");
    let organizers = d.organizers.unwrap();
    assert!(matches!(
        organizers[..3],
        [LinkedItem::Id(5), LinkedItem::Id(6), LinkedItem::Id(7)]
    ));
    match &organizers[3] {
        LinkedItem::Inline(draft) => assert_eq!(draft.changes.title.as_deref(), Some("New")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn image_urls_need_a_scheme_and_an_image_extension() {
    assert!(links::is_image_url("https://example.com/a/b.JPG?x=1"));
    assert!(!links::is_image_url("ftp://example.com/a.jpg"));
    assert!(!links::is_image_url("https://example.com/a.pdf"));
    assert!(!links::is_image_url("javascript:alert(1).png"));
}

#[test]
fn websites_are_http_urls_or_empty() {
    assert_eq!(normalize_url("").as_deref(), Some(""));
    assert_eq!(
        normalize_url("https://x.org/a").as_deref(),
        Some("https://x.org/a")
    );
    assert_eq!(normalize_url("x.org").as_deref(), Some("http://x.org"));
    assert_eq!(normalize_url("javascript:alert(1)"), None);
    assert_eq!(normalize_url("not a url"), None);
}

//! An event's times in its own zone, an offset or the site's, all day or not.

use super::*;

both!(
    new_york_summer_event_is_edt_four_hours_behind,
    |app| async move {
        let r = app
            .post(
                "events",
                with(
                    event("July", "2027-07-10 09:00:00", "2027-07-10 11:30:00"),
                    json!({"timezone": "America/New_York"}),
                ),
            )
            .await;
        r.assert(201);
        assert_eq!(
            when(&r.body),
            [
                "2027-07-10 09:00:00",
                "2027-07-10 11:30:00",
                "2027-07-10 13:00:00",
                "2027-07-10 15:30:00",
                "America/New_York",
                "EDT"
            ]
        );
        assert_eq!(r.body["utc_start_date_details"]["hour"], "13");
        assert_eq!(r.body["start_date_details"]["hour"], "09");
    }
);

both!(
    new_york_winter_event_is_est_five_hours_behind,
    |app| async move {
        let r = app
            .post(
                "events",
                with(
                    event("January", "2027-01-10 21:00:00", "2027-01-10 23:00:00"),
                    json!({"timezone": "America/New_York"}),
                ),
            )
            .await;
        assert_eq!(
            when(&r.body),
            [
                "2027-01-10 21:00:00",
                "2027-01-10 23:00:00",
                "2027-01-11 02:00:00",
                "2027-01-11 04:00:00",
                "America/New_York",
                "EST"
            ]
        );
        assert_eq!(r.body["utc_end_date_details"]["day"], "11");
    }
);

both!(tokyo_event_is_nine_hours_ahead, |app| async move {
    let r = app
        .post(
            "events",
            with(
                event("Tokyo", "2027-01-05 08:00:00", "2027-01-05 10:00:00"),
                json!({"timezone": "Asia/Tokyo"}),
            ),
        )
        .await;
    assert_eq!(
        when(&r.body),
        [
            "2027-01-05 08:00:00",
            "2027-01-05 10:00:00",
            "2027-01-04 23:00:00",
            "2027-01-05 01:00:00",
            "Asia/Tokyo",
            "JST"
        ]
    );
});

both!(manual_offsets_and_the_site_zone, |app| async move {
    let r = app.post("events", jan(json!({"timezone": "UTC+2"}))).await;
    assert_eq!(
        when(&r.body),
        [
            "2027-01-05 09:00:00",
            "2027-01-05 11:00:00",
            "2027-01-05 07:00:00",
            "2027-01-05 09:00:00",
            "UTC+2",
            "UTC+2"
        ]
    );
    let site = app.post("events", jan(json!({}))).await;
    assert_eq!(when(&site.body)[4..], ["UTC", "UTC"]);
    let offset = app
        .post(
            "events",
            event(
                "Offset",
                "2027-01-05T09:00:00+02:00",
                "2027-01-05T10:00:00+02:00",
            ),
        )
        .await;
    assert_eq!(offset.body["utc_start_date"], "2027-01-05 07:00:00");
    let r = app
        .post("events", jan(json!({"timezone": "Mars/Olympus"})))
        .await;
    r.assert_error(400, "rest_invalid_param");
    assert!(r.body["data"]["params"].get("timezone").is_some());
});

both!(
    all_day_widens_to_whole_days_in_the_event_zone,
    |app| async move {
        let r = app
            .post(
                "events",
                with(
                    event("Festival", "2027-03-01 10:00:00", "2027-03-03 12:00:00"),
                    json!({"all_day": true, "timezone": "Europe/Paris"}),
                ),
            )
            .await;
        r.assert(201);
        assert_eq!(r.body["all_day"], true);
        assert_eq!(
            when(&r.body),
            [
                "2027-03-01 00:00:00",
                "2027-03-03 23:59:59",
                "2027-02-28 23:00:00",
                "2027-03-03 22:59:59",
                "Europe/Paris",
                "CET"
            ]
        );
        let multi = app
            .post(
                "events",
                event("Conference", "2027-03-01 10:00:00", "2027-03-04 18:00:00"),
            )
            .await;
        assert_eq!(multi.body["all_day"], false);
        assert_eq!(multi.body["end_date"], "2027-03-04 18:00:00");
        assert_eq!(multi.body["end_date_details"]["day"], "04");
    }
);

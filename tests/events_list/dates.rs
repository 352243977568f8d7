//! The date window of the event list: whole days, exact times, relative bounds.

use super::*;

both!(start_and_end_dates_contain_whole_days, |app| async move {
    reference_events(&app).await;
    let r = app
        .get("events?start_date=2018-01-01%2015:00&end_date=2018-01-01%2018:00")
        .await;
    r.assert(200);
    assert_eq!(titles(&r), ["B", "C"]);
    assert!(
        r.body["rest_url"]
            .as_str()
            .unwrap()
            .contains("start_date=2018-01-01+00%3A00%3A00&end_date=2018-01-01+23%3A59%3A59"),
        "{}",
        r.body["rest_url"]
    );
    // Containment, not overlap: an event must end by the end bound.
    let r = app
        .get("events?start_date=2017-12-31&end_date=2018-01-01")
        .await;
    assert_eq!(titles(&r), ["A", "B", "C"]);
});

both!(strict_dates_use_the_exact_times, |app| async move {
    reference_events(&app).await;
    let r = app
        .get("events?start_date=2018-01-01%2015:00&end_date=2018-01-01%2018:00&strict_dates=true")
        .await;
    assert_eq!(titles(&r), ["B"]);
    let r = app
        .get(
            "events?start_date=2018-01-01%2016:00:00&end_date=2018-01-01%2016:30:00&strict_dates=1",
        )
        .await;
    assert_eq!(titles(&r), ["B"], "bounds are inclusive");
});

both!(
    relative_bounds_are_strict_and_drop_the_default_window,
    |app| async move {
        reference_events(&app).await;
        let r = app
            .get("events?ends_after=2017-12-31&starts_before=2018-01-02")
            .await;
        assert_eq!(
            titles(&r),
            ["B", "C", "D"],
            "past events: no default window"
        );
        let r = app
            .get("events?starts_after=2018-01-01%2016:00:00&strict_dates=true")
            .await;
        assert_eq!(titles(&r), ["C", "D"]);
        let r = app
            .get("events?ends_before=2018-01-01%2020:30:00&strict_dates=true")
            .await;
        assert_eq!(titles(&r), ["A", "B"]);
        let r = app
            .get("events?starts_before=2018-01-01%2016:00:00&strict_dates=true")
            .await;
        assert_eq!(titles(&r), ["A"]);
        // An explicit start_date still applies next to a relative bound.
        let r = app
            .get("events?starts_before=2018-01-02&start_date=2018-01-01")
            .await;
        assert_eq!(titles(&r), ["B", "C", "D"]);
        for bad in [
            "starts_before=foo",
            "ends_after=before%20my%20birthday",
            "start_date=nope",
        ] {
            app.get(&format!("events?{bad}"))
                .await
                .assert_error(400, "rest_invalid_param");
        }
    }
);

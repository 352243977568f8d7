//! The conventions WordPress clients rely on beyond the routes themselves.

mod common;

use axum::body::Body;
use axum::http::{Request, header};
use common::*;

fn post_with(path: &str, auth: &TestUser, header: Option<(&str, &str)>) -> Request<Body> {
    use base64::Engine;
    let token = base64::engine::general_purpose::STANDARD
        .encode(format!("{}:{}", auth.login, auth.password));
    let mut req = Request::builder()
        .method("POST")
        .uri(format!("{API}/{path}"))
        .header(header::AUTHORIZATION, format!("Basic {token}"));
    if let Some((name, value)) = header {
        req = req.header(name, value);
    }
    req.body(Body::empty()).unwrap()
}

both!(
    a_post_can_say_it_is_a_delete_as_wordpress_lets_it,
    |app| async move {
        let a = app
            .event(event("A", "2027-01-01 10:00:00", "2027-01-01 11:00:00"))
            .await;
        let b = app
            .event(event("B", "2027-01-01 10:00:00", "2027-01-01 11:00:00"))
            .await;
        let r = app
            .send(post_with(
                &format!("events/{a}?_method=DELETE"),
                &app.admin,
                None,
            ))
            .await;
        r.assert(200);
        assert_eq!(r.body["status"], "trash");
        let r = app
            .send(post_with(
                &format!("events/{b}"),
                &app.admin,
                Some(("X-HTTP-Method-Override", "delete")),
            ))
            .await;
        r.assert(200);
        assert_eq!(r.body["status"], "trash");
        for id in [a, b] {
            let r = app.get_as(&format!("events/{id}"), &app.admin.auth()).await;
            assert_eq!(r.body["status"], "trash", "really trashed");
        }
        // Deleting for good through the override.
        let r = app
            .send(post_with(
                &format!("events/{a}?_method=DELETE&force=true"),
                &app.admin,
                None,
            ))
            .await;
        r.assert(200);
        app.get_as(&format!("events/{a}"), &app.admin.auth())
            .await
            .assert_error(400, "rest_invalid_param");
        // An override naming a method the route does not have is no route, never the POST.
        let c = app
            .event(event("C", "2027-01-01 10:00:00", "2027-01-01 11:00:00"))
            .await;
        let r = app
            .send(post_with(
                &format!("events/{c}?_method=BREW"),
                &app.admin,
                None,
            ))
            .await;
        r.assert_error(404, "rest_no_route");
        let r = app
            .send(post_with("events?_method=DELETE", &app.admin, None))
            .await;
        r.assert_error(404, "rest_no_route");
        // The override is for POSTs: a GET stays a read.
        let r = app.get(&format!("events/{c}?_method=DELETE")).await;
        r.assert(200);
        assert_eq!(r.body["status"], "publish");
    }
);

//! Authentication abuse: failures are counted per client address and per login.
//! A locked-out address gets 429 with Retry-After, even with the right secret; a
//! login under attack refuses wrong secrets only, never its owner's right one.

mod common;

use axum::body::Body;
use axum::http::Request;
use base64::Engine;
use calendar_events::domain::permissions::Role;
use calendar_events::http::ClientAddr;
use common::*;

fn request_from(ip: &str, login: &str, password: &str) -> Request<Body> {
    let token = base64::engine::general_purpose::STANDARD.encode(format!("{login}:{password}"));
    let mut req = Request::builder()
        .uri(format!("{API}/venues"))
        .header("authorization", format!("Basic {token}"))
        .body(Body::empty())
        .unwrap();
    req.extensions_mut()
        .insert(ClientAddr(format!("{ip}:40000").parse().unwrap()));
    req
}

both!(
    repeated_failures_from_one_address_are_locked_out,
    |app| async move {
        let user = app.user(Role::Editor).await;
        for _ in 0..10 {
            app.send(request_from("10.0.0.1", "nobody", "wrong"))
                .await
                .assert_error(401, "incorrect_password");
        }
        let locked = app
            .send(request_from("10.0.0.1", &user.login, &user.password))
            .await;
        locked.assert_error(429, "rest_too_many_requests");
        let retry: u64 = locked.header("retry-after").unwrap().parse().unwrap();
        assert!((1..=300).contains(&retry), "{retry}");
        // Another address with the right secret is unaffected.
        app.send(request_from("10.0.0.2", &user.login, &user.password))
            .await
            .assert(200);
        // Requests without credentials are never locked out.
        let mut anonymous = Request::builder()
            .uri(format!("{API}/venues"))
            .body(Body::empty())
            .unwrap();
        anonymous
            .extensions_mut()
            .insert(ClientAddr("10.0.0.1:1".parse().unwrap()));
        app.send(anonymous).await.assert(200);
    }
);

both!(
    failures_for_a_login_never_lock_its_owner_out,
    |app| async move {
        let user = app.user(Role::Author).await;
        // A guesser spreads wrong passwords for the login over many addresses.
        for i in 0..10 {
            app.send(request_from(&format!("10.1.0.{i}"), &user.login, "guess"))
                .await
                .assert_error(401, "incorrect_password");
        }
        // Further guesses for that login are refused, from any address...
        let r = app
            .send(request_from("10.1.1.1", &user.login, "another guess"))
            .await;
        r.assert_error(429, "rest_too_many_requests");
        assert!(r.header("retry-after").is_some());
        // ...but the owner's correct password works from anywhere, every time.
        for ip in ["10.9.9.9", "10.9.9.10", "10.1.0.3"] {
            app.send(request_from(ip, &user.login, &user.password))
                .await
                .assert(200);
        }
        let other = app.user(Role::Author).await;
        app.send(request_from("10.9.9.9", &other.login, &other.password))
            .await
            .assert(200);
        // The guesser's own address, once over the limit, is refused before any check.
        for _ in 0..10 {
            app.send(request_from("10.7.7.7", "nobody", "x")).await;
        }
        app.send(request_from("10.7.7.7", &other.login, &other.password))
            .await
            .assert_error(429, "rest_too_many_requests");
    }
);

both!(successes_do_not_count_against_the_limit, |app| async move {
    let user = app.user(Role::Subscriber).await;
    for _ in 0..30 {
        app.send(request_from("10.2.0.1", &user.login, &user.password))
            .await
            .assert(200);
    }
});

/// Statements run while answering one request.
async fn statements_for(app: &TestApp, req: Request<Body>) -> (u64, Resp) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    let counter = Arc::new(AtomicU64::new(0));
    let resp = calendar_events::store::db::STATEMENT_COUNTER
        .scope(counter.clone(), app.send(req))
        .await;
    (counter.load(Ordering::Relaxed), resp)
}

both!(
    unknown_logins_and_wrong_secrets_do_the_same_work,
    |app| async move {
        let user = app.user(Role::Editor).await;
        let (unknown, r1) =
            statements_for(&app, request_from("10.3.0.1", "no-such-user", "secret")).await;
        let (wrong, r2) =
            statements_for(&app, request_from("10.3.0.2", &user.login, "secret")).await;
        r1.assert_error(401, "incorrect_password");
        r2.assert_error(401, "incorrect_password");
        // Same statements, same answer: neither the body nor the work tells logins apart.
        assert_eq!(unknown, wrong);
        assert_eq!(r1.error_body(), r2.error_body());
    }
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_on_one_database_share_the_failure_limit() {
    let Some(a) = TestApp::postgres().await else {
        return;
    };
    let Some(b) = a.second_instance().await else {
        return;
    };
    let user = a.user(Role::Editor).await;
    let send = |router: axum::Router, ip: &'static str, password: String| {
        let login = user.login.clone();
        async move {
            let resp = tower::ServiceExt::oneshot(router, request_from(ip, &login, &password))
                .await
                .unwrap();
            resp.status().as_u16()
        }
    };
    // Ten failures from one address, split between the two instances.
    for i in 0..10 {
        let router = if i % 2 == 0 { a.router() } else { b.clone() };
        assert_eq!(
            send(router, "10.4.0.1", "wrong".into()).await,
            401,
            "failure {i}"
        );
    }
    // The limit holds for the deployment: both instances now refuse that address.
    for router in [a.router(), b.clone()] {
        assert_eq!(send(router, "10.4.0.1", user.password.clone()).await, 429);
    }
    // Another address is not affected, on either.
    for router in [a.router(), b.clone()] {
        assert_eq!(send(router, "10.4.0.2", user.password.clone()).await, 200);
    }
}

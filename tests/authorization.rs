//! The permission matrix: every route and method of the route table, for every
//! role, on objects the caller owns and objects of others, published and draft.
//! `expected` matches on every `Op`, so a new route does not compile until its
//! permission rule is written down here.

mod common;

use axum::http::Method;
use calendar_events::api::table::{Op, ROUTES};
use calendar_events::domain::permissions::Role;
use calendar_events::domain::post::PostType;
use common::*;
use serde_json::{Value, json};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Who {
    Anonymous,
    Signed(Role),
}

fn can_edit_any(who: Who) -> bool {
    matches!(who, Who::Signed(Role::Editor | Role::Administrator))
}

/// Whether `who` may edit a post: editors anything; authors their own; contributors their own drafts.
fn can_edit(who: Who, own: bool, draft: bool) -> bool {
    match who {
        Who::Signed(Role::Editor | Role::Administrator) => true,
        Who::Signed(Role::Author) => own,
        Who::Signed(Role::Contributor) => own && draft,
        _ => false,
    }
}

fn denied(who: Who) -> u16 {
    if who == Who::Anonymous { 401 } else { 403 }
}

/// The status `who` gets for `op`/`method` on an object that is (or is not) theirs and a draft.
fn expected(op: Op, who: Who, own: bool, draft: bool) -> u16 {
    let creates = |ok: u16| match who {
        Who::Anonymous => 401,
        Who::Signed(Role::Subscriber) => 403,
        _ => ok,
    };
    match op {
        Op::Index
        | Op::Doc
        | Op::EventList
        | Op::LinkedList(_)
        | Op::TermList(_)
        | Op::TermGet(_) => 200,
        Op::EventCreate | Op::LinkedCreate(_) => creates(201),
        Op::EventGet(_) | Op::LinkedGet(..) => {
            if !draft || can_edit(who, own, draft) {
                200
            } else {
                403
            }
        }
        Op::EventUpdate(_) | Op::LinkedUpdate(..) | Op::EventDelete(_) | Op::LinkedDelete(..) => {
            if can_edit(who, own, draft) {
                200
            } else {
                denied(who)
            }
        }
        Op::TermCreate(_) => {
            if can_edit_any(who) {
                201
            } else {
                denied(who)
            }
        }
        Op::TermUpdate(_) | Op::TermDelete(_) => {
            if can_edit_any(who) {
                200
            } else {
                denied(who)
            }
        }
    }
}

/// The objects one case works on.
struct Fixture {
    event: (i64, String),
    venue: (i64, String),
    organizer: (i64, String),
    category: i64,
    tag: i64,
}

async fn fixture(app: &TestApp, author: i64, draft: bool, n: usize) -> Fixture {
    let status = if draft { "draft" } else { "publish" };
    let mk = |path: &'static str, body: Value| {
        let app = &app;
        async move {
            let r = app.post(path, body).await;
            r.assert(201);
            (
                r.id(),
                r.body["slug"].as_str().unwrap_or_default().to_string(),
            )
        }
    };
    let event = mk(
        "events",
        json!({"title": format!("Event {n}"), "start_date": "2027-05-01 10:00:00", "end_date": "2027-05-01 11:00:00",
               "author": author, "status": status}),
    )
    .await;
    let venue = mk(
        "venues",
        json!({"venue": format!("Venue {n}"), "author": author, "status": status}),
    )
    .await;
    let organizer = mk(
        "organizers",
        json!({"organizer": format!("Org {n}"), "author": author, "status": status}),
    )
    .await;
    let category = mk("categories", json!({"name": format!("Cat {n}")}))
        .await
        .0;
    let tag = mk("tags", json!({"name": format!("Tag {n}")})).await.0;
    Fixture {
        event,
        venue,
        organizer,
        category,
        tag,
    }
}

fn target(op: Op, path: &str, f: &Fixture) -> String {
    let (id, slug) = match op {
        Op::EventGet(_) | Op::EventUpdate(_) | Op::EventDelete(_) => f.event.clone(),
        Op::LinkedGet(PostType::Venue, _)
        | Op::LinkedUpdate(PostType::Venue, _)
        | Op::LinkedDelete(PostType::Venue, _) => f.venue.clone(),
        Op::LinkedGet(..) | Op::LinkedUpdate(..) | Op::LinkedDelete(..) => f.organizer.clone(),
        Op::TermGet(t) | Op::TermUpdate(t) | Op::TermDelete(t) => {
            let id = if t == calendar_events::domain::term::Taxonomy::Category {
                f.category
            } else {
                f.tag
            };
            (id, String::new())
        }
        _ => (0, String::new()),
    };
    format!(
        "{API}{}",
        path.replace("{id}", &id.to_string())
            .replace("{slug}", &slug)
    )
}

fn body(op: Op, n: usize) -> Option<Value> {
    Some(match op {
        Op::EventCreate => {
            json!({"title": format!("New {n}"), "start_date": "2027-06-01 10:00:00", "end_date": "2027-06-01 11:00:00"})
        }
        Op::EventUpdate(_) => json!({"excerpt": "changed"}),
        Op::LinkedCreate(PostType::Venue) => json!({"venue": format!("New venue {n}")}),
        Op::LinkedCreate(_) => json!({"organizer": format!("New organizer {n}")}),
        Op::LinkedUpdate(..) => json!({"phone": "555"}),
        Op::TermCreate(_) => json!({"name": format!("New term {n}")}),
        Op::TermUpdate(_) => json!({"description": "changed"}),
        _ => return None,
    })
}

both!(
    every_route_method_role_and_ownership_gets_the_expected_status,
    |app| async move {
        let mut callers: Vec<(Who, Option<TestUser>)> = vec![(Who::Anonymous, None)];
        for role in [
            Role::Subscriber,
            Role::Contributor,
            Role::Author,
            Role::Editor,
            Role::Administrator,
        ] {
            callers.push((Who::Signed(role), Some(app.user(role).await)));
        }
        let admin_id = app.admin.id;
        let mut n = 0;
        let mut checked = 0;
        for (who, user) in &callers {
            let auth = user.as_ref().map_or(Auth::None, TestUser::auth);
            for own in [false, true] {
                if own && user.is_none() {
                    continue;
                }
                for draft in [false, true] {
                    let owner = if own {
                        user.as_ref().unwrap().id
                    } else {
                        admin_id
                    };
                    n += 1;
                    let shared = fixture(&app, owner, draft, n).await;
                    for deletes in [false, true] {
                        for route in ROUTES {
                            for ep in route.endpoints {
                                for method in ep.methods {
                                    if (*method == Method::DELETE) != deletes {
                                        continue;
                                    }
                                    // A delete changes its object, so each gets fresh ones.
                                    let fresh;
                                    let f = if deletes {
                                        n += 1;
                                        fresh = fixture(&app, owner, draft, n).await;
                                        &fresh
                                    } else {
                                        &shared
                                    };
                                    let path = target(ep.op, route.path, f);
                                    let r = app
                                        .call(method.clone(), &path, body(ep.op, n), &auth)
                                        .await;
                                    let want = expected(ep.op, *who, own, draft);
                                    assert_eq!(
                                        r.status.as_u16(),
                                        want,
                                        "{method} {path} as {who:?} (own: {own}, draft: {draft}): {}",
                                        r.text
                                    );
                                    checked += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 500, "checked {checked}");
    }
);

//! `manifest`: samples a generated database for the Lua scripts of `bench/run.sh`.

use std::path::Path;

use base64::Engine;
use calendar_events::domain::post::{PostType, Status};
use calendar_events::domain::term::Taxonomy;
use calendar_events::store::Store;

use crate::Result;
use crate::hostile;
use crate::sweep;
use crate::{ManifestArgs, admin_with_password, is_postgres, pg_connect, sqlite_path};

/// Rows of a query whose columns are all cast to text, on either backend.
pub(crate) async fn text_rows(url: &str, sql: &str) -> Result<Vec<Vec<String>>> {
    if is_postgres(url) {
        let client = pg_connect(url).await?;
        Ok(client
            .query(sql, &[])
            .await?
            .iter()
            .map(|r| (0..r.len()).map(|i| r.get::<_, String>(i)).collect())
            .collect())
    } else {
        let path = sqlite_path(url);
        let sql = sql.to_string();
        tokio::task::spawn_blocking(move || -> Result<Vec<Vec<String>>> {
            let conn = rusqlite::Connection::open(path)?;
            let mut stmt = conn.prepare(&sql)?;
            let n = stmt.column_count();
            let rows = stmt
                .query_map([], |r| (0..n).map(|i| r.get::<_, String>(i)).collect())?
                .collect::<rusqlite::Result<_>>()?;
            Ok(rows)
        })
        .await?
    }
}

pub(crate) fn write_lines(
    dir: &Path,
    name: &str,
    rows: &[Vec<String>],
    column: usize,
) -> Result<()> {
    let mut text = String::new();
    for r in rows {
        text.push_str(&r[column]);
        text.push('\n');
    }
    std::fs::write(dir.join(name), text)?;
    Ok(())
}

/// How many events the manifest offers the `removals` scenario: half to edit, half to
/// remove, more than a 10-second run at 64 connections removes on this hardware.
pub(crate) const REMOVABLE_EVENTS: usize = 50_000;

pub(crate) async fn manifest(args: ManifestArgs) -> Result<()> {
    let url = &args.database_url;
    // As it is: `ab.sh` runs the manifest of each copy before the server measured on
    // it, which may be an older build than this one.
    let store = Store::open_as_is(url).await?;
    let (admin, password) = admin_with_password(&store, &args.admin_login).await?;
    drop(store);
    std::fs::create_dir_all(&args.out)?;
    let basic =
        base64::engine::general_purpose::STANDARD.encode(format!("{}:{password}", admin.login));
    std::fs::write(args.out.join("authorization"), format!("Basic {basic}\n"))?;

    // Published events without a password answer 200 to anyone; a fixed scatter of IDs
    // keeps the sample the same from run to run without clustering it in time.
    let event = PostType::Event.as_str();
    let publish = Status::Publish.as_str();
    let events = text_rows(
        url,
        &format!(
            "SELECT CAST(id AS TEXT), slug FROM posts
             WHERE post_type = '{event}' AND status = '{publish}' AND password = ''
             ORDER BY (id * 7919) % 10007, id LIMIT {}",
            args.samples
        ),
    )
    .await?;
    write_lines(&args.out, "event_ids", &events, 0)?;
    write_lines(&args.out, "event_slugs", &events, 1)?;
    // Events the `removals` scenario edits and removes: from the other end of the same
    // scatter, so that at 100k events and more none is one the reads sample.
    let removable = text_rows(
        url,
        &format!(
            "SELECT CAST(id AS TEXT) FROM posts
             WHERE post_type = '{event}' AND status = '{publish}' AND password = ''
             ORDER BY (id * 7919) % 10007 DESC, id LIMIT {REMOVABLE_EVENTS}"
        ),
    )
    .await?;
    write_lines(&args.out, "removable_ids", &removable, 0)?;
    let categories = write_terms_and_linked(url, &args.out).await?;
    let totals = text_rows(
        url,
        &format!(
            "SELECT CAST(COUNT(*) AS TEXT),
                    CAST(COALESCE(SUM(CASE WHEN status = '{publish}' THEN 1 ELSE 0 END), 0) AS TEXT)
             FROM posts WHERE post_type = '{event}'"
        ),
    )
    .await?;
    let total = |i: usize| -> i64 { totals[0][i].parse().unwrap_or(0) };
    let ids: Vec<String> = events.iter().map(|r| r[0].clone()).collect();
    let sweep_kinds = sweep::write_plan(url, &args.out, &ids).await?;
    let hostile_kinds = hostile::write_plan(url, &args.out, &ids).await?;
    let manifest = serde_json::json!({
        "admin_login": admin.login,
        "sweep_kinds": sweep_kinds,
        "hostile_kinds": hostile_kinds,
        "events": total(0),
        "published_events": total(1),
        "sampled_events": events.len(),
        "top_category": categories.first().map(|c| serde_json::json!({"id": c[0], "count": c[1]})),
    });
    std::fs::write(
        args.out.join("manifest.json"),
        serde_json::to_string_pretty(&manifest)? + "\n",
    )?;
    println!("{}", serde_json::to_string(&manifest)?);
    Ok(())
}

/// Writes the IDs of the categories (most used first), the tags and up to 1,000
/// published venues and organizers; returns the categories with their counts.
async fn write_terms_and_linked(url: &str, out: &Path) -> Result<Vec<Vec<String>>> {
    let publish = Status::Publish.as_str();
    let categories = text_rows(
        url,
        &format!(
            "SELECT CAST(id AS TEXT), CAST(count AS TEXT) FROM terms
             WHERE taxonomy = '{}' ORDER BY count DESC, id",
            Taxonomy::Category.as_str()
        ),
    )
    .await?;
    write_lines(out, "category_ids", &categories, 0)?;
    let tags = text_rows(
        url,
        &format!(
            "SELECT CAST(id AS TEXT) FROM terms WHERE taxonomy = '{}' ORDER BY id",
            Taxonomy::Tag.as_str()
        ),
    )
    .await?;
    write_lines(out, "tag_ids", &tags, 0)?;
    for (post_type, file) in [
        (PostType::Venue.as_str(), "venue_ids"),
        (PostType::Organizer.as_str(), "organizer_ids"),
    ] {
        let rows = text_rows(
            url,
            &format!(
                "SELECT CAST(id AS TEXT) FROM posts
                 WHERE post_type = '{post_type}' AND status = '{publish}' ORDER BY id LIMIT 1000"
            ),
        )
        .await?;
        write_lines(out, file, &rows, 0)?;
    }
    Ok(categories)
}

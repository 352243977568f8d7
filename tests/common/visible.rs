//! What a visitor may see, counted from the posts themselves: the expectation a
//! list's count is checked against.

use super::TestApp;

/// How many events a visitor sees among the posts (`p`) matching `dates`, SQL
/// over their `start_utc` and `end_utc`: published, or scheduled and due, not
/// hidden from listings, and in `category` when one is given.
pub async fn visible_events(app: &TestApp, dates: &str, category: Option<i64>) -> usize {
    let now = chrono::Utc::now().timestamp();
    let in_category = category.map_or(String::new(), |c| {
        format!(" AND EXISTS (SELECT 1 FROM term_relationships r WHERE r.post_id = p.id AND r.term_id = {c})")
    });
    let sql = format!(
        "(SELECT COUNT(*) FROM posts p WHERE p.post_type = 'event' AND NOT p.hide_from_listings \
         AND (p.status = 'publish' OR (p.status = 'future' AND p.date_utc <= {now})) \
         AND {dates}{in_category})"
    );
    usize::try_from(app.scalar(&sql).await).unwrap()
}

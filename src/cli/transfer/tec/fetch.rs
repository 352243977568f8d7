//! The site's answers: one GET, tried again while its failure may pass.

use std::time::Duration;

use serde_json::Value;

/// Tries of one request before the import gives up on it.
pub const ATTEMPTS: u32 = 6;
/// The longest pause between two tries, whatever the site asks.
const LONGEST_PAUSE: Duration = Duration::from_secs(60);
/// The largest answer read: a page of 50 events is far smaller.
const LARGEST_ANSWER: u64 = 64 << 20;

/// What one request came to.
enum Outcome {
    /// The answer's text, and the pages its list has (`X-WP-TotalPages`).
    Done(String, Option<u64>),
    /// Worth another try, after the site's own pause if it named one.
    Retry(String, Option<Duration>),
    Failed(String),
}

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .user_agent(concat!(
            "calendar-events-import/",
            env!("CARGO_PKG_VERSION")
        ))
        .build()
        .into()
}

/// A document at a URL (an iCalendar feed), read as a site's pages are.
pub fn fetch_text(url: &str) -> Result<String, String> {
    fetch(&agent(), url, None, ATTEMPTS).map(|(text, _)| text)
}

/// One GET, tried again while the failure may pass.
pub fn fetch(
    agent: &ureq::Agent,
    url: &str,
    authorization: Option<&str>,
    attempts: u32,
) -> Result<(String, Option<u64>), String> {
    let mut pause = Duration::from_millis(500);
    let mut attempt = 1;
    loop {
        let (why, asked) = match once(agent, url, authorization) {
            Outcome::Done(text, pages) => return Ok((text, pages)),
            Outcome::Failed(why) => return Err(why),
            Outcome::Retry(why, asked) => (why, asked),
        };
        if attempt >= attempts {
            return Err(match attempts {
                1 => why,
                n => format!("{why} (after {n} tries)"),
            });
        }
        let jitter = Duration::from_millis(rand::random_range(0..250));
        std::thread::sleep(asked.unwrap_or(pause).min(LONGEST_PAUSE) + jitter);
        pause *= 2;
        attempt += 1;
    }
}

fn once(agent: &ureq::Agent, url: &str, authorization: Option<&str>) -> Outcome {
    let mut request = agent.get(url);
    if let Some(a) = authorization {
        request = request.header("Authorization", a);
    }
    let mut response = match request.call() {
        Ok(r) => r,
        // What may pass: a site restarting, a network hiccup.
        Err(e @ (ureq::Error::Io(_) | ureq::Error::Timeout(_) | ureq::Error::ConnectionFailed)) => {
            return Outcome::Retry(format!("{url}: {e}"), None);
        }
        Err(e) => return Outcome::Failed(format!("{url}: {e}")),
    };
    let status = response.status().as_u16();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    let retry_after = header("retry-after").map(Duration::from_secs);
    let pages = header("x-wp-totalpages");
    let text = match response
        .body_mut()
        .with_config()
        .limit(LARGEST_ANSWER)
        .read_to_string()
    {
        Ok(t) => t,
        Err(e) => return Outcome::Retry(format!("{url}: {e}"), None),
    };
    match status {
        200..=299 => Outcome::Done(text, pages),
        408 | 429 | 500 | 502 | 503 | 504 => {
            Outcome::Retry(format!("{url}: HTTP {status}"), retry_after)
        }
        _ => Outcome::Failed(refusal(url, status, &text)),
    }
}

/// A refusal as the site words it (WordPress's `code` and `message`).
fn refusal(url: &str, status: u16, text: &str) -> String {
    let body: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    match (body["code"].as_str(), body["message"].as_str()) {
        (Some(code), Some(message)) => format!("{url}: HTTP {status} {code}: {message}"),
        _ => format!("{url}: HTTP {status}"),
    }
}

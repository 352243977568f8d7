//! A response as the tests read it, and the credentials a request carries.

use axum::http::{HeaderMap, StatusCode};
use serde_json::Value;

/// A response as a client sees it.
#[derive(Debug)]
pub struct Resp {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
    pub text: String,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The error code of an error body.
    pub fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or("")
    }

    #[track_caller]
    pub fn assert(&self, status: u16) -> &Self {
        assert_eq!(
            self.status.as_u16(),
            status,
            "unexpected status; body: {}",
            self.text
        );
        self
    }

    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) -> &Self {
        self.assert(status);
        assert_eq!(
            self.code(),
            code,
            "unexpected error code; body: {}",
            self.text
        );
        assert_eq!(
            self.body["data"]["status"], status,
            "data.status; body: {}",
            self.text
        );
        self
    }

    /// An error body without its per-request `data.request_id`, for exact comparisons.
    pub fn error_body(&self) -> Value {
        let mut body = self.body.clone();
        if let Some(data) = body["data"].as_object_mut() {
            data.remove("request_id");
        }
        body
    }

    pub fn id(&self) -> i64 {
        self.body["id"]
            .as_i64()
            .unwrap_or_else(|| panic!("no id in {}", self.text))
    }
}

/// Credentials a request carries.
#[derive(Clone, Debug)]
pub enum Auth {
    None,
    Basic(String, String),
    Bearer(String),
}

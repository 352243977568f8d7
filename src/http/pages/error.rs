//! What a page request can fail with, and the HTML page each failure shows: a
//! visitor who follows a stale link gets a page of the site, not a JSON error.

use askama::Template;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::Visit;
use super::chrome::{self, Chrome};
use crate::service::{self, Refusal};

#[derive(Debug, thiserror::Error)]
pub enum PageError {
    /// Nothing by that name, or nothing an anonymous visitor may see.
    #[error("no such page")]
    NotFound,
    /// The query names something that cannot be shown (an unknown filter value).
    #[error("the request asks for nothing the calendar can show")]
    BadRequest,
    #[error("rendering a page: {0}")]
    Render(#[from] askama::Error),
    #[error("the calendar could not answer: {0}")]
    Service(service::Error),
}

impl From<service::Error> for PageError {
    fn from(err: service::Error) -> PageError {
        use service::Error as E;
        match err {
            E::Refused(
                Refusal::NotAccessible(_)
                | Refusal::NoLongerAvailable
                | Refusal::InTrash(_)
                | Refusal::PageNotFound(_)
                | Refusal::PasswordProtected,
            )
            | E::Forbidden { .. } => PageError::NotFound,
            E::Invalid(_) | E::Missing(_) => PageError::BadRequest,
            other => PageError::Service(other),
        }
    }
}

impl crate::http::cache::serve::Failure for PageError {
    fn timed_out() -> Self {
        PageError::Service(service::Error::Unavailable("the page took too long".into()))
    }
}

impl PageError {
    /// For a read of one named thing: an unknown name is a missing page.
    pub fn of_lookup(err: service::Error) -> PageError {
        match PageError::from(err) {
            PageError::BadRequest => PageError::NotFound,
            other => other,
        }
    }

    fn status(&self) -> StatusCode {
        match self {
            PageError::NotFound => StatusCode::NOT_FOUND,
            PageError::BadRequest => StatusCode::BAD_REQUEST,
            PageError::Service(service::Error::Unavailable(_)) => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage {
    chrome: Chrome,
    text: String,
}

/// The HTML page of a failure; what went wrong inside is logged, not shown.
pub fn page(visit: &Visit, err: PageError) -> Response {
    let status = err.status();
    let tr = super::text::Tr::new(&visit.lang.code);
    let (title, text) = match &err {
        PageError::NotFound => (tr.t("page-not-found"), tr.t("page-not-found-text")),
        PageError::BadRequest => (tr.t("page-not-found"), tr.t("page-bad-request-text")),
        _ => {
            tracing::error!(error = %err, path = %visit.path, "a calendar page failed");
            (tr.t("page-error"), tr.t("page-error-text"))
        }
    };
    let view = ErrorPage {
        chrome: visit.chrome(title),
        text,
    };
    match view.render() {
        Ok(html) => chrome::html(visit.settings(), status, html),
        Err(err) => {
            tracing::error!(error = %err, "rendering the error page");
            status.into_response()
        }
    }
}

//! `serve`: open the database, build the router, listen until SIGTERM/SIGINT.

use std::sync::Arc;

use tracing_subscriber::EnvFilter;

use crate::config::{ServeArgs, Settings};
use crate::http::{self, AppState};
use crate::store::Store;

pub fn init_logging(format: &str) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    let _ = if format == "json" {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}

pub async fn run(args: ServeArgs) -> Result<(), String> {
    init_logging(&args.log_format);
    let settings = Settings::from_args(&args);
    let store = Store::open(&args.db.database_url)
        .await
        .map_err(|e| format!("cannot open the database: {e}"))?;
    let app = Arc::new(AppState { store, settings });
    let router = http::service(app);
    let listener = tokio::net::TcpListener::bind(&args.bind)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.bind))?;
    tracing::info!(bind = %args.bind, database = %redact(&args.db.database_url), "serving calendar/events/v1");
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown_signal())
        .await
        .map_err(|e| e.to_string())?;
    tracing::info!("stopped");
    Ok(())
}

/// A database URL without its password, for logs.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let creds = &url[scheme + 3..at];
            match creds.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
    tracing::info!("shutting down: finishing in-flight requests");
}

#[cfg(test)]
mod tests {
    #[test]
    fn redacts_passwords_in_database_urls() {
        assert_eq!(
            super::redact("postgres://u:secret@h/db"),
            "postgres://u:***@h/db"
        );
        assert_eq!(
            super::redact("sqlite://calendar.db"),
            "sqlite://calendar.db"
        );
    }
}

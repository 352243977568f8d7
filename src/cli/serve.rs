//! `serve`: open the database, build the router, listen until SIGTERM/SIGINT.

use std::sync::Arc;

use tower::ServiceExt;
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
    let store = Store::open_with_timeout(&args.db.database_url, Some(settings.request_timeout))
        .await
        .map_err(|e| format!("cannot open the database: {e}"))?;
    let app = Arc::new(AppState::new(store, settings));
    let router = http::service(app.clone());
    let listener = tokio::net::TcpListener::bind(&args.bind)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.bind))?;
    tracing::info!(bind = %args.bind, database = %redact(&args.db.database_url), "serving calendar/events/v1");
    serve(listener, router, &args).await;
    // Every connection has finished: no request is in flight, so closing the pools is clean.
    drop(app);
    tracing::info!("stopped");
    Ok(())
}

/// The accept loop: HTTP/1.1 with bounded header size and header read time (so slow
/// clients cannot hold connections open), a cap on open connections, and a graceful
/// shutdown that stops accepting and then waits for in-flight requests.
async fn serve(listener: tokio::net::TcpListener, router: axum::Router, args: &ServeArgs) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::service::TowerToHyperService;

    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(std::time::Duration::from_secs(
            args.header_read_timeout_secs.max(1),
        ))
        .max_buf_size(args.max_header_bytes.max(8192));
    let connections = Arc::new(tokio::sync::Semaphore::new(args.max_connections.max(1)));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let shutdown = shutdown_signal();
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = connections.clone().acquire_owned() => match permit {
                Ok(p) => p,
                Err(_) => break,
            },
            _ = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(router.clone().map_request(
            move |mut req: axum::http::Request<hyper::body::Incoming>| {
                req.extensions_mut().insert(http::ClientAddr(peer));
                req
            },
        ));
        let conn = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop(permit);
        });
    }
    drop(listener);
    tracing::info!("shutting down: finishing in-flight requests");
    graceful.shutdown().await;
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

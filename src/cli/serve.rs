//! `serve`: open the database, build the router, listen until SIGTERM/SIGINT.

use std::sync::Arc;

use tower::ServiceExt;
use tracing_subscriber::EnvFilter;

use crate::config::{ServeArgs, Settings};
use crate::http::{self, AppState};
use crate::service::Service;

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
    let timeout = Some(settings.request_timeout);
    let service = Service::open(&args.db.database_url, timeout, &settings)
        .await
        .map_err(|e| format!("cannot open the database: {e}"))?;
    // A term deletion or category move in steps an instance stopped during goes on.
    service.finish_work_in_steps();
    let app = Arc::new(AppState::new(service, settings));
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
    let per_address = PerAddress::new(args.max_connections_per_address);
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
        let Some(per_address) = per_address.admit(peer.ip()) else {
            // One address holds its share already: close this one at once, so that
            // a single client cannot take the slots every other client needs.
            tracing::debug!(peer = %peer.ip(), "too many connections from one address");
            drop(stream);
            continue;
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
            drop(per_address);
        });
    }
    drop(listener);
    tracing::info!("shutting down: finishing in-flight requests");
    graceful.shutdown().await;
}

/// Open connections per client address, capped.
#[derive(Clone)]
struct PerAddress {
    cap: usize,
    open: Arc<std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>>,
}

/// One connection counted against its address until it is dropped.
struct AddressSlot {
    ip: std::net::IpAddr,
    open: Arc<std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>>,
}

impl PerAddress {
    fn new(cap: usize) -> PerAddress {
        PerAddress {
            cap,
            open: Arc::default(),
        }
    }

    /// A slot for a new connection from `ip`, unless it has `cap` open already.
    fn admit(&self, ip: std::net::IpAddr) -> Option<Option<AddressSlot>> {
        if self.cap == 0 {
            return Some(None);
        }
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let count = open.entry(ip).or_insert(0);
        if *count >= self.cap {
            return None;
        }
        *count += 1;
        Some(Some(AddressSlot {
            ip,
            open: self.open.clone(),
        }))
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = open.get_mut(&self.ip) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.ip);
            }
        }
    }
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
    fn each_address_gets_at_most_its_cap_of_connections() {
        let cap = super::PerAddress::new(2);
        let (a, b): (std::net::IpAddr, std::net::IpAddr) =
            ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let first = cap.admit(a).unwrap();
        let second = cap.admit(a).unwrap();
        assert!(cap.admit(a).is_none(), "a third from the same address");
        assert!(cap.admit(b).is_some(), "another address is not affected");
        drop(first);
        assert!(cap.admit(a).is_some(), "a closed connection frees its slot");
        drop(second);
        assert!(
            super::PerAddress::new(0).admit(a).is_some(),
            "0 lifts the cap"
        );
    }

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

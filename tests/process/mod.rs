//! Driving the real `calendar-events` binary: start it, talk HTTP to it over
//! loopback, stop it with signals.

#![allow(dead_code)]

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_calendar-events");

/// A free loopback port (racy in theory, fine on a test machine).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Creates an administrator through the CLI and returns its application password.
pub fn create_admin(database_url: &str, login: &str) -> String {
    let out = Command::new(BIN)
        .args([
            "user",
            "create",
            login,
            "--role",
            "administrator",
            "--database-url",
            database_url,
        ])
        .output()
        .expect("run user create");
    assert!(
        out.status.success(),
        "user create failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    stdout
        .lines()
        .last()
        .expect("password line")
        .trim()
        .to_string()
}

thread_local! {
    /// Extra command-line settings for the next `Server::start` on this thread.
    pub static EXTRA_ARGS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

thread_local! {
    /// The user the next `Server::start` on this thread runs as, if not this one.
    static RUN_AS: std::cell::Cell<Option<(u32, u32)>> = const { std::cell::Cell::new(None) };
}

pub struct Server {
    pub child: Child,
    pub port: u16,
}

impl Server {
    pub fn start(database_url: &str) -> Server {
        Server::start_logging(database_url, "warn", None)
    }

    /// Starts the server with these arguments after the usual ones.
    pub fn start_with_args(database_url: &str, args: &[&str]) -> Server {
        EXTRA_ARGS.with(|a| *a.borrow_mut() = args.iter().map(|s| s.to_string()).collect());
        let server = Server::start(database_url);
        EXTRA_ARGS.with(|a| a.borrow_mut().clear());
        server
    }

    /// Starts the server as another user (`uid`, `gid`), as a service account runs it.
    pub fn start_as(database_url: &str, ids: (u32, u32)) -> Server {
        RUN_AS.with(|r| r.set(Some(ids)));
        let server = Server::start(database_url);
        RUN_AS.with(|r| r.set(None));
        server
    }

    /// Starts the server with a log level, writing its output to `log` when given.
    /// A free port may be taken by another test's server between the moment it is
    /// picked and the moment this one binds it: this one then exits, and it starts
    /// again on another port.
    pub fn start_logging(database_url: &str, level: &str, log: Option<&std::path::Path>) -> Server {
        for _ in 0..5 {
            let mut server = Server::spawn(database_url, level, log);
            server.wait_ready();
            std::thread::sleep(Duration::from_millis(150));
            if server.child.try_wait().ok().flatten().is_none() {
                return server;
            }
        }
        panic!("the server did not start on any of five ports");
    }

    fn spawn(database_url: &str, level: &str, log: Option<&std::path::Path>) -> Server {
        let port = free_port();
        let (out, err) = match log {
            Some(path) => {
                let file = std::fs::File::create(path).unwrap();
                (Stdio::from(file.try_clone().unwrap()), Stdio::from(file))
            }
            None => (Stdio::null(), Stdio::null()),
        };
        let mut command = Command::new(BIN);
        if let Some((uid, gid)) = RUN_AS.with(|r| r.get()) {
            use std::os::unix::process::CommandExt;
            command.uid(uid).gid(gid);
        }
        let child = command
            .args([
                "--database-url",
                database_url,
                "--bind",
                &format!("127.0.0.1:{port}"),
            ])
            .args(EXTRA_ARGS.with(|a| a.borrow().clone()))
            .env("RUST_LOG", level)
            .stdout(out)
            .stderr(err)
            .spawn()
            .expect("start server");
        Server { child, port }
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("server did not start listening on {}", self.port);
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub fn kill9(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM, then the exit status once it has stopped.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("server did not stop after SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A small HTTP client for loopback tests.
#[derive(Clone)]
pub struct Http {
    client: Client<hyper_util::client::legacy::connect::HttpConnector, Full<bytes::Bytes>>,
    auth: String,
}

impl Http {
    pub fn new(login: &str, password: &str) -> Http {
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{login}:{password}"));
        Http {
            client: Client::builder(TokioExecutor::new()).build_http(),
            auth: format!("Basic {token}"),
        }
    }

    /// `(status, body)`; `None` when the connection failed (server down).
    pub async fn send(
        &self,
        method: &str,
        url: &str,
        body: Option<&Value>,
    ) -> Option<(u16, Value)> {
        let bytes = body
            .map(|b| serde_json::to_vec(b).unwrap())
            .unwrap_or_default();
        let req = hyper::Request::builder()
            .method(method)
            .uri(url)
            .header("authorization", &self.auth)
            .header("content-type", "application/json")
            .body(Full::new(bytes::Bytes::from(bytes)))
            .unwrap();
        let resp = tokio::time::timeout(Duration::from_secs(30), self.client.request(req))
            .await
            .ok()?
            .ok()?;
        let status = resp.status().as_u16();
        let body = resp.into_body().collect().await.ok()?.to_bytes();
        Some((status, serde_json::from_slice(&body).unwrap_or(Value::Null)))
    }
}

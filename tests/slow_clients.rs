//! Slow and oversized clients against the real binary: headers must arrive in time,
//! request heads are bounded, and a crowd of slow connections does not lock out
//! a normal client.

mod process;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use process::Server;

fn start(args: &[&str]) -> (tempfile::TempDir, Server) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("slow.db").display());
    let server = Server::start_with_args(&url, args);
    (dir, server)
}

fn get(port: u16, path: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out
}

#[test]
fn a_client_that_never_finishes_its_headers_is_disconnected() {
    let (_dir, server) = start(&["--header-read-timeout-secs", "1"]);
    let mut slow = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    slow.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let started = Instant::now();
    let mut buf = [0u8; 64];
    let n = slow.read(&mut buf).unwrap_or(0);
    let waited = started.elapsed();
    assert!(waited < Duration::from_secs(5), "closed after {waited:?}");
    assert!(
        n == 0 || String::from_utf8_lossy(&buf[..n]).contains("408"),
        "{:?}",
        &buf[..n]
    );
}

#[test]
fn many_slow_clients_do_not_lock_out_a_normal_one() {
    let (_dir, server) = start(&["--header-read-timeout-secs", "2", "--max-connections", "64"]);
    let crowd: Vec<TcpStream> = (0..200)
        .filter_map(|_| {
            let mut s = TcpStream::connect(("127.0.0.1", server.port)).ok()?;
            s.write_all(b"GET /health HTTP/1.1\r\n").ok()?;
            Some(s)
        })
        .collect();
    assert!(!crowd.is_empty());
    // The crowd holds every connection slot until its header deadline; then it is cut.
    let started = Instant::now();
    let answer = get(server.port, "/health");
    assert!(answer.contains("200 OK"), "{answer}");
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "answered after {:?}",
        started.elapsed()
    );
    drop(crowd);
}

#[test]
fn oversized_request_heads_are_refused() {
    let (_dir, server) = start(&["--max-header-bytes", "16384"]);
    let mut s = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let big = "a".repeat(200_000);
    let _ = write!(s, "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: {big}\r\n\r\n");
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    assert!(
        out.starts_with("HTTP/1.1 431"),
        "{}",
        &out[..out.len().min(80)]
    );
    assert!(
        get(server.port, "/health").contains("200 OK"),
        "still serving"
    );
}

/// Sends a POST's head promising a long body, and the first byte of it.
fn trickling_post(port: u16) -> Option<TcpStream> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.write_all(
        b"POST /calendar/events/v1/venues HTTP/1.1\r\nHost: x\r\n\
          Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{",
    )
    .ok()?;
    Some(s)
}

#[test]
fn slow_bodies_hold_no_turn_and_meet_their_own_deadline() {
    let (_dir, server) = start(&[
        "--max-concurrent-requests",
        "4",
        "--body-read-timeout-secs",
        "2",
        "--max-connections-per-address",
        "0",
    ]);
    let mut crowd: Vec<TcpStream> = (0..40)
        .filter_map(|_| trickling_post(server.port))
        .collect();
    assert_eq!(crowd.len(), 40);
    std::thread::sleep(Duration::from_millis(300));
    // Ten times more slow bodies than turns: reads are still answered at once.
    for path in ["/calendar/events/v1/events", "/health"] {
        let started = Instant::now();
        let answer = get(server.port, path);
        assert!(answer.starts_with("HTTP/1.1 200"), "{path}: {answer}");
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "{path} answered after {:?}",
            started.elapsed()
        );
    }
    // Each slow body is cut at its own deadline with a 408.
    let slow = &mut crowd[0];
    slow.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut out = String::new();
    let _ = slow.read_to_string(&mut out);
    assert!(out.starts_with("HTTP/1.1 408"), "{out}");
    assert!(out.contains("rest_request_timeout"), "{out}");
}

/// A connection to the server from another loopback address.
async fn connect_from(source: &str, port: u16) -> tokio::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{source}:0").parse().unwrap()).unwrap();
    socket
        .connect(format!("127.0.0.1:{port}").parse().unwrap())
        .await
        .unwrap()
}

#[tokio::test]
async fn one_address_cannot_take_every_connection() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (_dir, server) = start(&[
        "--max-connections",
        "64",
        "--max-connections-per-address",
        "8",
    ]);
    let mut idle = Vec::new();
    for _ in 0..100 {
        idle.push(connect_from("127.0.0.3", server.port).await);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    // All but its eight are closed by the server at once.
    let mut closed = 0;
    for s in &mut idle {
        let mut buf = [0u8; 1];
        if let Ok(Ok(0) | Err(_)) =
            tokio::time::timeout(Duration::from_millis(50), s.read(&mut buf)).await
        {
            closed += 1;
        }
    }
    assert_eq!(closed, 92, "the address keeps exactly its cap");
    // Another client is served at once.
    let started = Instant::now();
    let mut other = connect_from("127.0.0.4", server.port).await;
    other
        .write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut out = String::new();
    tokio::time::timeout(Duration::from_secs(5), other.read_to_string(&mut out))
        .await
        .unwrap()
        .unwrap();
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    drop(idle);
}

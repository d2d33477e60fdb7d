//! `kobana-mcp healthcheck`: the container image's `HEALTHCHECK`.
//!
//! The image is a static binary on a base with no shell, curl or wget, so the binary probes its
//! own listener: one `GET` of a plain-HTTP URL (default `http://127.0.0.1:8080/healthz`), success
//! when the answer's status is 2xx. Blocking std I/O with timeouts: no runtime, nothing to start,
//! and a hung listener fails the probe instead of hanging it.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use anyhow::{anyhow, bail, Context};

/// The default probe: the HTTP listener's liveness route on the image's default address.
pub const DEFAULT_URL: &str = "http://127.0.0.1:8080/healthz";

/// What one probe found: the status line's code.
pub fn probe(url: &str, timeout: Duration) -> anyhow::Result<u16> {
    let rest = url.strip_prefix("http://").ok_or_else(|| {
        anyhow!("{url}: only http:// URLs can be probed (the listener's own address)")
    })?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    if authority.is_empty() {
        bail!("{url}: no host");
    }
    let with_port = if authority
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
    {
        authority.to_string()
    } else {
        format!("{authority}:80")
    };
    let addr = with_port
        .to_socket_addrs()
        .with_context(|| format!("{url}: cannot resolve {authority}"))?
        .next()
        .ok_or_else(|| anyhow!("{url}: {authority} resolves to no address"))?;
    let mut stream = TcpStream::connect_timeout(&addr, timeout)
        .with_context(|| format!("{url}: cannot connect to {addr}"))?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    // One write: a listener that answers and closes early must not see half a request.
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nUser-Agent: kobana-mcp-healthcheck\r\nConnection: close\r\n\r\n"
    );
    stream
        .write_all(request.as_bytes())
        .with_context(|| format!("{url}: cannot send the request"))?;
    // The status line is all we need; read until its end (or 1 KiB).
    let mut head = Vec::with_capacity(128);
    let mut buf = [0u8; 128];
    while !head.contains(&b'\n') && head.len() < 1024 {
        let n = stream
            .read(&mut buf)
            .with_context(|| format!("{url}: no answer"))?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let line = String::from_utf8_lossy(&head);
    let line = line.lines().next().unwrap_or_default();
    let status = line
        .strip_prefix("HTTP/1.")
        .and_then(|r| r.get(2..5))
        .and_then(|code| code.parse::<u16>().ok())
        .ok_or_else(|| anyhow!("{url}: not an HTTP answer: {line:?}"))?;
    Ok(status)
}

/// The subcommand: `Ok` when the status is 2xx, an error naming the status otherwise.
pub fn run(url: &str, timeout: Duration) -> anyhow::Result<()> {
    let status = probe(url, timeout)?;
    if (200..300).contains(&status) {
        println!("{url}: {status}");
        Ok(())
    } else {
        bail!("{url}: unhealthy (HTTP {status})")
    }
}

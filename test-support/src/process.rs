//! Running the `kobana-mcp` binary in the tests that go through it: a free port, a child that is
//! killed when the test ends (pass or fail), and a wait until its listener accepts connections.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The variables a developer's shell may hold that change what `serve` does: a test's server
/// must not inherit them.
pub const AMBIENT_VARIABLES: &[&str] = &[
    "KOBANA_UPSTREAM_URL",
    "KOBANA_UPSTREAM_SERVES",
    "KOBANA_CONFIG",
    "KOBANA_HTTP_ADDR",
    "KOBANA_LEDGER",
    "KOBANA_RATE_LIMIT_IP",
    "KOBANA_RATE_LIMIT_READS",
    "KOBANA_RATE_LIMIT_WRITES",
    "KOBANA_TRUST_PROXY_HEADERS",
    "KOBANA_SCOPE_CHALLENGE",
];

/// A TCP port nothing listens on now (the OS picks it).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A child process killed when the test ends, pass or fail.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits (up to a minute) until something accepts connections on `port` of 127.0.0.1.
pub fn wait_for(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "nothing listens on {port}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `bin --data-dir <dir>`, run in `dir`, without the ambient variables.
pub fn kobana(bin: &str, data_dir: &Path) -> Command {
    let mut c = Command::new(bin);
    c.arg("--data-dir").arg(data_dir);
    for var in AMBIENT_VARIABLES {
        c.env_remove(var);
    }
    c.current_dir(data_dir);
    c
}

/// Starts `cmd` (output discarded) and waits until it listens on `port`.
pub fn start(mut cmd: Command, port: u16) -> Running {
    let running = Running(
        cmd.stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts"),
    );
    wait_for(port);
    running
}

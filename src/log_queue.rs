//! Where the log lines go: stderr, through a bounded queue and one writer thread.
//!
//! Why: a line used to be written to stderr by the thread that logged it. When nothing reads
//! that stderr (an MCP client that pipes a stdio server's stderr and reads it only if the server
//! dies), the pipe fills at 64 KiB and the next request's log line blocked its tokio worker: a
//! stdio server stopped answering after about 400 requests. Now a request never waits for the
//! log's reader: a line that finds the queue full is dropped and counted, and the next line that
//! finds room (or the end of the process) says how many were dropped, where they would have been.
//!
//! The end of the process ([`Flush`]) waits up to a second for the queued lines, and writes
//! nothing anywhere else: on stdio, stdout is the protocol's.

use std::io::{self, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How many lines may wait for stderr: a request line is about 150 bytes, so at most a couple of
/// MiB are held when stderr is stuck.
const QUEUE_LINES: usize = 8192;

/// How long the end of the process waits for the queued lines to reach stderr.
const FLUSH_WITHIN: Duration = Duration::from_secs(1);

/// The `tracing_subscriber` writer: each line goes to the queue, or is dropped if it is full.
#[derive(Clone)]
pub struct LogQueue {
    tx: SyncSender<Vec<u8>>,
    /// Lines dropped since the last one that found room.
    dropped: Arc<AtomicU64>,
}

impl LogQueue {
    /// Queues `line`, preceded by the notice of the lines dropped before it, if any; counts it
    /// (and them, again) as dropped when the queue is full.
    fn push(&self, mut line: Vec<u8>) {
        let (gap, notice) = self.take_notice();
        if let Some(mut notice) = notice {
            notice.append(&mut line);
            line = notice;
        }
        if let Err(TrySendError::Full(_)) = self.tx.try_send(line) {
            self.dropped.fetch_add(gap + 1, Ordering::AcqRel);
        }
    }

    /// The lines dropped since the last notice, and the notice that says so (none when none
    /// were). The count is only read while nothing is dropped: no shared write per line.
    fn take_notice(&self) -> (u64, Option<Vec<u8>>) {
        if self.dropped.load(Ordering::Acquire) == 0 {
            return (0, None);
        }
        let gap = self.dropped.swap(0, Ordering::AcqRel);
        let notice = (gap > 0).then(|| {
            format!("kobana-mcp: {gap} log lines dropped here: stderr was not being read\n")
                .into_bytes()
        });
        (gap, notice)
    }
}

/// Waits (at most [`FLUSH_WITHIN`]) for the queued lines to be written when dropped. Hold it
/// until the process ends; drop it before `std::process::exit`, which runs no destructors.
pub struct Flush {
    queue: LogQueue,
    done: Receiver<()>,
}

/// Starts the writer thread. `out` is where lines go (stderr in the binary).
pub fn start(out: impl Write + Send + 'static) -> io::Result<(LogQueue, Flush)> {
    let (tx, rx) = mpsc::sync_channel::<Vec<u8>>(QUEUE_LINES);
    let (done_tx, done) = mpsc::channel();
    std::thread::Builder::new()
        .name("kobana-log".into())
        .spawn(move || write_lines(out, &rx, &done_tx))?;
    let queue = LogQueue {
        tx,
        dropped: Arc::new(AtomicU64::new(0)),
    };
    Ok((queue.clone(), Flush { queue, done }))
}

/// How long the writer pauses after a write, so that the lines of a busy moment leave together:
/// at most about a thousand writes (and wake-ups) a second, instead of one per request.
const GATHER: Duration = Duration::from_millis(1);

/// The largest write the writer makes; a longer run of queued lines leaves in several.
const WRITE_MAX: usize = 64 * 1024;

/// The writer thread: lines in order, those queued together in one write. An empty message asks
/// for the queue so far to be written ([`Flush`]).
fn write_lines(mut out: impl Write, rx: &Receiver<Vec<u8>>, done: &mpsc::Sender<()>) {
    // One write per gathered batch; an empty batch is not written.
    fn send(out: &mut impl Write, batch: &mut Vec<u8>) {
        if !batch.is_empty() {
            let _ = out.write_all(batch);
            batch.clear();
        }
    }
    let mut batch = Vec::with_capacity(WRITE_MAX);
    while let Ok(first) = rx.recv() {
        let mut next = Some(first);
        while let Some(line) = next {
            if line.is_empty() {
                send(&mut out, &mut batch);
                let _ = out.flush();
                let _ = done.send(());
            } else {
                if batch.len() + line.len() > WRITE_MAX {
                    send(&mut out, &mut batch);
                }
                batch.extend_from_slice(&line);
            }
            next = rx.try_recv().ok();
        }
        send(&mut out, &mut batch);
        std::thread::sleep(GATHER);
    }
}

impl Drop for Flush {
    fn drop(&mut self) {
        let deadline = Instant::now() + FLUSH_WITHIN;
        let (_, notice) = self.queue.take_notice();
        // The notice of the last lines dropped, if any, then the request to write everything.
        for mut message in notice.into_iter().chain([Vec::new()]) {
            loop {
                match self.queue.tx.try_send(message) {
                    Ok(()) => break,
                    Err(TrySendError::Full(back)) if Instant::now() < deadline => {
                        message = back;
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err(_) => return,
                }
            }
        }
        let _ = self
            .done
            .recv_timeout(deadline.saturating_duration_since(Instant::now()));
    }
}

/// One log line being formatted; queued when the formatter is done with it.
pub struct Line<'a> {
    queue: &'a LogQueue,
    buf: Vec<u8>,
}

impl Write for Line<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for Line<'_> {
    fn drop(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        self.queue.push(std::mem::take(&mut self.buf));
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogQueue {
    type Writer = Line<'a>;
    fn make_writer(&'a self) -> Line<'a> {
        Line {
            queue: self,
            buf: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Condvar, Mutex};

    /// Whether the writer was entered, whether it is released, and what it got.
    type Written = Mutex<(bool, bool, Vec<u8>)>;

    /// A writer that blocks until released, as a full pipe does, and keeps what it got.
    #[derive(Clone, Default)]
    struct Stuck(Arc<(Written, Condvar)>);

    impl Write for Stuck {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            let (lock, open) = &*self.0;
            let mut state = lock.lock().map_err(|_| io::Error::other("poisoned"))?;
            state.0 = true;
            while !state.1 {
                state = open.wait(state).map_err(|_| io::Error::other("poisoned"))?;
            }
            state.2.extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Stuck {
        /// Waits until the writer thread is blocked in a write.
        fn wait_entered(&self) {
            let deadline = Instant::now() + Duration::from_secs(20);
            while !self.0 .0.lock().expect("lock").0 {
                assert!(Instant::now() < deadline, "the writer never wrote");
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        fn release(&self) {
            let (lock, open) = &*self.0;
            lock.lock().expect("lock").1 = true;
            open.notify_all();
        }
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.0 .0.lock().expect("lock").2).into_owned()
        }
    }

    fn log(queue: &LogQueue, text: &str) {
        let mut line = tracing_subscriber::fmt::MakeWriter::make_writer(queue);
        line.write_all(text.as_bytes()).expect("a line is buffered");
    }

    /// A writer thread blocked in its write with one line, then a full queue.
    fn stuck_with_a_full_queue() -> (Stuck, LogQueue, Flush) {
        let out = Stuck::default();
        let (queue, flush) = start(out.clone()).expect("writer thread");
        log(&queue, "line 000000\n");
        out.wait_entered();
        for i in 1..=QUEUE_LINES {
            log(&queue, &format!("line {i:06}\n"));
        }
        assert_eq!(queue.dropped.load(Ordering::Acquire), 0);
        (out, queue, flush)
    }

    fn notice(count: usize) -> String {
        format!("kobana-mcp: {count} log lines dropped here: stderr was not being read")
    }

    #[test]
    fn a_stuck_writer_drops_lines_instead_of_blocking_and_says_where_and_how_many() {
        let (out, queue, flush) = stuck_with_a_full_queue();
        let started = Instant::now();
        for i in 0..100 {
            log(&queue, &format!("dropped {i}\n"));
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "logging waited for the stuck writer"
        );
        assert_eq!(queue.dropped.load(Ordering::Acquire), 100);
        out.release();
        // Once the writer has caught up, the next line finds room and carries the notice.
        let caught_up = Instant::now() + Duration::from_secs(20);
        while out.text().lines().count() <= QUEUE_LINES && Instant::now() < caught_up {
            std::thread::sleep(Duration::from_millis(5));
        }
        log(&queue, "after\n");
        drop(flush);
        let text = out.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines.len(),
            QUEUE_LINES + 3,
            "{:?}",
            &lines[lines.len() - 3..]
        );
        for (i, line) in lines[..=QUEUE_LINES].iter().enumerate() {
            assert_eq!(*line, format!("line {i:06}"));
        }
        assert_eq!(lines[QUEUE_LINES + 1], notice(100));
        assert_eq!(lines[QUEUE_LINES + 2], "after");
    }

    #[test]
    fn lines_dropped_at_the_end_are_reported_at_the_end() {
        let (out, queue, flush) = stuck_with_a_full_queue();
        for i in 0..10 {
            log(&queue, &format!("dropped {i}\n"));
        }
        out.release();
        drop(flush);
        let text = out.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), QUEUE_LINES + 2);
        assert_eq!(lines[QUEUE_LINES], format!("line {QUEUE_LINES:06}"));
        assert_eq!(lines[QUEUE_LINES + 1], notice(10));
    }

    #[test]
    fn the_end_of_the_process_waits_for_the_queued_lines() {
        let out = Stuck::default();
        out.release();
        let (queue, flush) = start(out.clone()).expect("writer thread");
        for i in 0..1000 {
            log(&queue, &format!("line {i}\n"));
        }
        drop(flush);
        assert_eq!(out.text().lines().count(), 1000);
    }
}

//! A body produced while it is read (archives, long compares): a producer thread writes into a
//! bounded channel of 64 KiB chunks, and the [`Reader`] the response carries takes them out. At most
//! [`CHANNEL_CHUNKS`] chunks wait, so memory stays bounded however slowly the client reads.
//!
//! Dropping the reader (the client went away, the response was freed) closes the channel;
//! the producer's next write fails and it stops, taking its compression workers with it.
//! A producer that fails or panics sends an error, so a reader never mistakes a truncated
//! body for a complete one: only an explicit end marker ends the stream cleanly.

use std::io::{self, Read, Write};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

const CHUNK: usize = 64 * 1024;
pub const CHANNEL_CHUNKS: usize = 4;

enum Message {
    Data(Vec<u8>),
    End,
    Failed(io::Error),
}

/// The producer's end: a `Write` that sends full chunks.
struct ChannelWriter {
    tx: SyncSender<Message>,
    buf: Vec<u8>,
}

fn gone() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the body's reader went away")
}

impl ChannelWriter {
    fn send_buf(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let full = std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK));
        self.tx.send(Message::Data(full)).map_err(|_| gone())
    }
}

impl Write for ChannelWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let room = CHUNK - self.buf.len();
        let n = room.min(data.len());
        self.buf.extend_from_slice(&data[..n]);
        if self.buf.len() == CHUNK {
            self.send_buf()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The consumer's end, a `Read` for `Body::Stream`.
pub struct Reader {
    rx: Receiver<Message>,
    current: Vec<u8>,
    pos: usize,
    done: bool,
}

impl Read for Reader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.current.len() {
            if self.done || out.is_empty() {
                return Ok(0);
            }
            match self.rx.recv() {
                Ok(Message::Data(chunk)) => {
                    self.current = chunk;
                    self.pos = 0;
                }
                Ok(Message::End) => {
                    self.done = true;
                    return Ok(0);
                }
                Ok(Message::Failed(e)) => return Err(e),
                Err(_) => return Err(io::Error::other("the body's producer stopped early")),
            }
        }
        let n = out.len().min(self.current.len() - self.pos);
        out[..n].copy_from_slice(&self.current[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Starts `produce` on a thread named `name`, writing into the returned reader.
pub fn spawn<F>(name: &str, produce: F) -> io::Result<Reader>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()> + Send + 'static,
{
    let (tx, rx) = sync_channel(CHANNEL_CHUNKS);
    std::thread::Builder::new().name(name.into()).spawn(move || {
        let mut writer = ChannelWriter { tx: tx.clone(), buf: Vec::with_capacity(CHUNK) };
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            produce(&mut writer)?;
            writer.send_buf()
        }));
        let last = match outcome {
            Ok(Ok(())) => Message::End,
            Ok(Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => return,
            Ok(Err(e)) => Message::Failed(e),
            Err(_) => Message::Failed(io::Error::other("the body's producer panicked")),
        };
        let _ = tx.send(last);
    })?;
    Ok(Reader { rx, current: Vec::new(), pos: 0, done: false })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reader_sees_everything_then_the_end() {
        let mut reader = spawn("test", |out| {
            for i in 0..1000u32 {
                out.write_all(&i.to_le_bytes().repeat(100))?;
            }
            Ok(())
        })
        .expect("spawn");
        let mut all = Vec::new();
        reader.read_to_end(&mut all).expect("read");
        assert_eq!(all.len(), 400_000);
        assert_eq!(&all[400..404], &1u32.to_le_bytes());
    }

    #[test]
    fn failures_and_panics_are_errors_not_ends() {
        let mut failing = spawn("test", |out| {
            out.write_all(b"partial")?;
            Err(io::Error::other("boom"))
        })
        .expect("spawn");
        let mut sink = Vec::new();
        assert!(failing.read_to_end(&mut sink).is_err());
        let mut panicking = spawn("test", |_| panic!("producer bug")).expect("spawn");
        assert!(panicking.read_to_end(&mut sink).is_err());
    }

    #[test]
    fn dropping_the_reader_stops_the_producer() {
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let reader = spawn("test", move |out| {
            let result = (|| loop {
                out.write_all(&[7u8; 4096])?;
            })();
            let _ = done_tx.send(());
            result
        })
        .expect("spawn");
        drop(reader);
        done_rx.recv_timeout(std::time::Duration::from_secs(10)).expect("the producer stopped");
    }
}

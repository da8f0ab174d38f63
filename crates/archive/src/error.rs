//! Why an archive could not be made: one enum, a variant for each way it fails, with what it
//! was about and its cause (gitoxide's style).
//!
//! The containers are written through `std::io::Write`, so inside the writers a failure
//! travels as an `io::Error`. An [`Error`] crosses into one whole (`io::Error::from`) and comes
//! back out as it was (`Error::from`); an `io::Error` that carries no [`Error`] is the output's
//! own and becomes [`Error::Write`], which turns back into that same `io::Error`, its kind
//! intact (a reader that went away stays `BrokenPipe`).

use gix::bstr::BString;
use std::io;
use std::path::PathBuf;

/// Why an archive could not be made, with what it was about and its cause.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot open the repository at {}", path.display())]
    OpenRepository {
        path: PathBuf,
        #[source]
        source: gix::Error,
    },
    #[error("object {id} is missing")]
    MissingObject { id: gix::ObjectId },
    #[error("object {id} is a {actual}, not a {expected}")]
    UnexpectedKind { id: gix::ObjectId, expected: gix::objs::Kind, actual: gix::objs::Kind },
    #[error("cannot read object {id}")]
    FindObject {
        id: gix::ObjectId,
        #[source]
        source: gix::Error,
    },
    #[error("cannot decode commit {id}")]
    DecodeCommit {
        id: gix::ObjectId,
        #[source]
        source: gix::Error,
    },
    #[error("cannot decode tree {id}")]
    DecodeTree {
        id: gix::ObjectId,
        #[source]
        source: gix::Error,
    },
    #[error("trees are nested deeper than {max} levels")]
    TooDeep { max: usize },
    #[error("cannot inflate blob {id}")]
    InflateBlob {
        id: gix::ObjectId,
        #[source]
        source: flate2::DecompressError,
    },
    #[error("cannot read packed blob {id}")]
    ReadPackedBlob {
        id: gix::ObjectId,
        #[source]
        source: io::Error,
    },
    #[error("cannot read loose blob {id}")]
    ReadLooseBlob {
        id: gix::ObjectId,
        #[source]
        source: io::Error,
    },
    #[error("loose object {id} has no header")]
    LooseHeader { id: gix::ObjectId },
    #[error("blob {id} is not the {size} bytes its header says")]
    BlobSize { id: gix::ObjectId, size: u64 },
    #[error("cannot read the LFS object {}", path.display())]
    ReadLfsObject {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("the LFS object {} changed while it was archived", path.display())]
    LfsObjectChanged { path: PathBuf },
    #[error("the converted content of blob {id} changed between two reads")]
    ConversionChanged { id: gix::ObjectId },
    #[error("{name} changed between the two reads of its zip member")]
    MemberChanged { name: BString },
    #[error("{name} is too long for a zip member name")]
    MemberNameTooLong { name: BString },
    #[error("cannot deflate a zip member")]
    Deflate(#[source] flate2::CompressError),
    #[error("cannot compress the archive")]
    Compress(#[source] io::Error),
    #[error("cannot keep part of the zip (its central directory, a deflated member) in a temporary file")]
    TemporaryFile(#[source] io::Error),
    #[error("cannot start an archive worker")]
    StartWorker(#[source] io::Error),
    #[error("an archive worker stopped")]
    WorkerStopped,
    #[error("cannot write the archive")]
    Write(#[source] io::Error),
}

impl From<Error> for io::Error {
    /// [`Error::Write`] is the output's own error again; any other is carried inside one.
    fn from(error: Error) -> io::Error {
        match error {
            Error::Write(output) => output,
            other => io::Error::other(other),
        }
    }
}

impl From<io::Error> for Error {
    /// The [`Error`] an `io::Error` carries, or else the output's failure.
    fn from(error: io::Error) -> Error {
        error.downcast::<Error>().unwrap_or_else(Error::Write)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_cross_the_writers_io_errors_whole() {
        let id = gix::ObjectId::null(gix::hash::Kind::Sha1);
        let carried = io::Error::from(Error::MissingObject { id });
        assert!(matches!(Error::from(carried), Error::MissingObject { id: back } if back == id));

        let gone = io::Error::new(io::ErrorKind::BrokenPipe, "the body's reader went away");
        let output = Error::from(gone);
        assert!(matches!(output, Error::Write(_)));
        assert_eq!(io::Error::from(output).kind(), io::ErrorKind::BrokenPipe);

        let inflate =
            flate2::Decompress::new(true).decompress(b"not zlib", &mut [0; 16], flate2::FlushDecompress::None);
        let source = inflate.expect_err("not a zlib stream");
        let error = io::Error::from(Error::InflateBlob { id, source });
        let cause = std::error::Error::source(&error).expect("the inflate error is kept as the cause");
        assert!(cause.is::<flate2::DecompressError>(), "{cause}");
    }
}

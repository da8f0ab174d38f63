//! What an operator sees of the core: one structured record per request ([`record`]), handed
//! to the host through one process-global sink ([`log`]); the metrics of each context
//! ([`metrics`]), fed by per-request counters ([`stats`]); the client's address as the core
//! uses it everywhere ([`client`]); and the correlation id of each request ([`correlation`]).
//!
//! Nothing here prints: records and diagnostics go to the sink the host registered
//! (`fc_log_set`), or nowhere.

pub mod client;
pub mod correlation;
pub mod log;
pub mod metrics;
pub mod record;
pub mod stats;

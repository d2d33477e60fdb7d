//! What the layers below the engine learn while one request runs, for its metrics, span and
//! audit record: the [`Facts`] a request's layers note through the handle in its call
//! ([`Notes`], kept with the handler contract so every layer can be handed it), and the metrics
//! recorded beside them.

use opentelemetry::KeyValue;

pub use crate::contract::facts::{ConfirmEvent, Facts, Notes, WriteCall};

use super::Telemetry;

/// A `resources/list` answered without the records of the template `uri_template` (its listing
/// failed or timed out): counted, so a type whose listing keeps failing shows.
pub fn listing_left_out(t: &Telemetry, product: &'static str, uri_template: &'static str) {
    t.instruments().listings_left_out.add(
        1,
        &[
            KeyValue::new("kobana.product", product),
            KeyValue::new("kobana.resource.template", uri_template),
        ],
    );
}

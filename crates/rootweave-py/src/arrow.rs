//! Arrays handed to Arrow consumers (pyarrow, Polars, ...) through the Arrow C data
//! interface and its PyCapsule protocol (`__arrow_c_array__`): the values' memory is
//! shared with the consumer, not copied, wherever Arrow's layout is ours (numbers, offsets,
//! string bytes). Booleans are packed into bits, optional values spread out with a
//! validity bitmap and variant indices narrowed to 32 bits, as Arrow lays them out.
//!
//! The conversion itself is the library's (`rootweave::arrow`, feature `arrow`).

use arrow_data::ffi::FFI_ArrowArray;
use arrow_data::ArrayData;
use arrow_schema::ffi::FFI_ArrowSchema;
use arrow_schema::ArrowError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use rootweave::array::Recycler;
use rootweave::arrow::to_arrow_batch;
use rootweave::dataset::BatchSource;

/// A batch of named arrays as one Arrow struct array (a record batch), exported through
/// the Arrow PyCapsule interface: `pyarrow.record_batch(batch)` takes it without copying.
#[pyclass(module = "rootweave._rootweave", frozen)]
pub struct ArrowBatch {
    data: ArrayData,
}

#[pymethods]
impl ArrowBatch {
    /// The Arrow PyCapsule protocol: `(schema capsule, array capsule)`. A requested
    /// schema other than the batch's own is not supported (consumers then cast).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema;
        let schema = FFI_ArrowSchema::try_from(self.data.data_type()).map_err(to_py)?;
        let array = FFI_ArrowArray::new(&self.data);
        // Each capsule owns its struct; a consumer moves the contents out (and marks the
        // struct released), otherwise dropping the capsule releases it.
        let schema = PyCapsule::new_with_value(py, schema, c"arrow_schema")?;
        let array = PyCapsule::new_with_value(py, array, c"arrow_array")?;
        Ok((schema, array))
    }

    /// Number of rows.
    fn __len__(&self) -> usize {
        self.data.len()
    }
}

fn to_py(e: ArrowError) -> PyErr {
    PyValueError::new_err(format!("Arrow export: {e}"))
}

/// Reads `fields` (the reader's default fields if empty) for entries `start..stop` with
/// the GIL released, as one Arrow batch.
pub fn read_batch<R: BatchSource + Sync>(
    py: Python<'_>,
    reader: &R,
    fields: &[String],
    start: u64,
    stop: u64,
) -> PyResult<ArrowBatch> {
    py.detach(|| {
        let names: Vec<&str> = fields.iter().map(String::as_str).collect();
        let columns = reader
            .read_fields_recycling(&names, start..stop, &mut Recycler::new())
            .map_err(crate::errors::to_py)?;
        // A TTree branch filled for fewer entries than its tree holds only those.
        let len = columns
            .first()
            .map_or(stop.saturating_sub(start) as usize, |(_, a)| a.len());
        let data = to_arrow_batch(columns, len).map_err(to_py)?;
        Ok(ArrowBatch { data })
    })
}

"""The component table: columns of numpy arrays, row i for label i + 1."""

import numpy as np


class ComponentTable(dict):
    """The component table of a labeling: a dict of numpy columns, one row per
    component, row i describing label i + 1.

    Columns: label (1..n, the labels' dtype's values), left, top, width,
    height (uint32, the bounding box), area (uint64), centroid_x, centroid_y
    (float64); for a volume also front, depth (uint32) and centroid_z.

        table["area"][table["label"] == 5]     # the area of label 5
        table.to_pandas()                      # a DataFrame indexed by label
        table.to_records()                     # a numpy structured array

    As a dict, pandas.DataFrame(table) has a label column beside its index
    0..n-1; to_pandas() indexes the rows by label instead.

    glccl.label(..., properties=[...]) gives a table of those region
    properties instead: regionprops_table's columns, row i for label i + 1.
    """

    @classmethod
    def from_columns(cls, columns):
        """The table of the compiled module's columns (a dict of arrays of
        one length n), with the label column 1..n first."""
        n = len(next(iter(columns.values()))) if columns else 0
        table = cls(label=np.arange(1, n + 1, dtype=np.uint64 if n > np.iinfo(np.uint32).max else np.uint32))
        table.update(columns)
        return table

    def to_records(self):
        """The table as a numpy structured array, one record per component."""
        names = list(self)
        n = len(next(iter(self.values()))) if self else 0
        records = np.empty(n, dtype=[(name, self[name].dtype) for name in names])
        for name in names:
            records[name] = self[name]
        return records

    def to_pandas(self):
        """The table as a pandas DataFrame indexed by label (ImportError
        without pandas)."""
        try:
            import pandas
        except ImportError:
            raise ImportError("ComponentTable.to_pandas() needs pandas, which this interpreter cannot import; "
                              "to_records() gives a numpy structured array") from None
        if "label" not in self:  # a table of properties without label (glccl.label(properties=...))
            return pandas.DataFrame(dict(self))
        frame = pandas.DataFrame({name: column for name, column in self.items() if name != "label"},
                                 index=pandas.Index(self["label"], name="label"))
        return frame

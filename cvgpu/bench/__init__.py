"""``python -m cvgpu bench``: cvgpu against cv2 in the same run, on built-in images.

cv2 is timed with the host clock (it is synchronous). cvgpu, after a warm-up: numpy in/out with the
host clock (upload, compute, the one sync and download included: what a numpy caller waits), device
in/out with CUDA events on the current stream (calls shorter than BATCH_MS in back-to-back batches
between one pair of events, see _timing.time_device). Every row gives the median and the 10th/90th
percentiles over its repetitions. Without a GPU only cv2 runs, and the header says so.

The package is the benchmark, never part of the library: cvgpu's own modules do not import it.
``cli`` holds the command line and the family registry, ``_timing`` the clocks, ``table`` the
environment header and the text table, ``workloads`` the shared synthetic images and photographs,
``report`` the markdown report and plots, and one module per family its rows.
"""


def main(argv=None):
    from .cli import main as run
    return run(argv)

"""The Prometheus text exposition as the tests read it: prometheus_client's
parser (Debian's python3-prometheus-client), samples by name, sums by
labels."""

from prometheus_client.parser import text_string_to_metric_families


def samples(text):
    """The samples of an exposition: {name: [(labels, value)]}; a
    histogram's under name_bucket, name_sum and name_count."""
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out.setdefault(s.name, []).append((s.labels, s.value))
    return out


def value(samples, metric, **labels):
    """The sum of the samples of metric whose labels include these (0
    when none)."""
    return sum(v for lab, v in samples.get(metric, [])
               if all(lab.get(k) == want for k, want in labels.items()))

"""Metric scorers in one registry (`registry`), each module one metric family; every metric carries
`higher_is_better`."""

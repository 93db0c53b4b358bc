"""Results of an assessment: ranked options, option detail and side-by-side comparison."""

"""The wizard: drafts (assessments), steps, check answers, results and comparison."""

// Package paired is the statistics of an A/B comparison whose samples
// come in pairs: one run of build A and the neighbouring run of build B,
// taken close together in time so that the machine's slow drift (a noisy
// neighbour, thermal or frequency changes lasting minutes) cancels in
// their ratio. It is the statistics layer of "kcbench gate -base" and of
// the report's ratios; it knows nothing of benchmarks, files or output.
//
// # Estimate
//
// Analyze works on the log ratios d = log(B/A) of the pairs. The test is
// the Wilcoxon signed-rank test of "the distribution of d is symmetric
// about 0" (exact distribution up to 50 non-zero pairs without ties, the
// normal approximation with tie and continuity corrections above). The
// point estimate of B/A is exp of the Hodges-Lehmann estimate (the median
// of the Walsh averages (d_i+d_j)/2, i <= j), and its interval is the
// distribution-free one that inverts the same test (Walsh averages of
// ranks c and M+1-c, M = n(n+1)/2): the estimate, the interval and the
// p-value agree with each other, and none of them assumes normal noise.
// The estimate is robust to bursts (up to 29% of wild pairs) and loses
// little against the mean on normal noise (asymptotic efficiency 0.955,
// against 0.637 for the median of d).
//
// Pairing needs the two sides to alternate (ABBA...): a linear drift
// then cancels in the pairs, and under "no change" d is symmetric about 0,
// which is what the signed-rank test assumes.
//
// # Minimum detectable effect
//
// Estimate.MDE is the smallest change of B/A that a run like this one
// (the same noise, the same number of pairs) detects with probability
// 90% at two-sided level rowAlpha. It comes from SE, the standard error
// of log(Ratio), read off the interval: SE = (log Hi - log Lo) / (2 z),
// z the normal quantile of the interval's confidence. The test rejects
// when |log Ratio| > z(1-rowAlpha/2)·SE, so a true shift of
// (z(1-rowAlpha/2) + z(0.90))·SE is detected 90% of the time, and
// MDE = exp of that, minus 1. This assumes that a change shifts every log
// ratio alike (a constant slowdown factor), that pairs are independent,
// and n large enough for the normal approximation; the interval adapts
// to the shape of the noise (heavy tails, bursts), a standard deviation
// would not. When even n pairs all pointing one way cannot reach
// rowAlpha (2/2^n > rowAlpha), MDE is +Inf: no effect is detectable.
//
// # Judging rows
//
// Judge analyses every Row, adjusts the p-values with Holm's step-down
// procedure across the rows, and gives each a Verdict. A row Regressed
// when its Holm-adjusted p-value is at most Options.Alpha and its point
// estimate is worse than Options.MaxRegress.
package paired

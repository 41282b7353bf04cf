// Package flip is phase flips for pedigrees: the move that swaps a
// founder's two alleles at every locus and flips the selectors of every
// meiosis from it, a symmetry of a genetic-linkage model (or nearly one)
// between modes that deterministic links keep apart for blocked Gibbs. On
// the UAI 2014 pedigree linkage_13 the error of blocked Gibbs was one such
// pair of modes: a founder's 19 allele pairs and the 57 selectors of its
// three children's meioses weighted 0.42/0.58 where the exact weights are
// 0.54/0.46, a chain crossing between them a few times in 20 s.
//
// Find recognises the groups from the factors alone: a transmission
// factor reads a pair of alleles a, b, a binary selector s and the
// child's allele c and keeps its value when a and b swap and s flips; a
// recombination factor reads two selectors and keeps its value when both
// flip, which links a meiosis's selectors across loci (including those
// whose transmission the evidence reduced to fewer variables). A group is
// one founder's pairs and the selectors linked to them; a parent whose
// alleles are a child's in another transmission is left out (a flip would
// break its own inheritance).
//
// Find also recognises couple swaps (couple.go): two founders whose
// children are all full siblings are exchangeable where nothing tells
// them apart, and the involution that swaps them — their alleles at every
// locus, in each child its two alleles and the two meioses' selectors,
// and the selectors of the meioses from each child flipped — crosses
// between modes no phase flip joins. On linkage_13 the error left after
// phase flips was 126 variables of exact marginal ½, held at 0.42/0.58:
// the alleles and selectors of such a couple's four children.
//
// Sampler adds to any sampler of the Gibbs family that shares its state
// (gibbs.Sharer) a round of flips every sweep: each group's involution T
// is proposed and accepted with probability min(1, π(Tx)/π(x)), the
// ratio over the factors T may change (those it provably keeps —
// transmissions, recombinations — cancel). A deterministic involution is
// its own reverse proposal, so the move keeps π whatever the groups; the
// test is what keeps it exact where the model is only nearly symmetric
// (allele frequencies, a founder's phenotype). Exactness is tested by
// enumeration on a small pedigree with unequal allele priors (visits and
// Rao–Blackwellised marginals), and flips accepted without the test are
// rejected by the same check.
package flip

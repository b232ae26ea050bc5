"""Environment registry: exact original identifiers, the catalog, and the paper's collections.

Every `Environment` subclass with a `name` defined in a module of the `environments`
package is registered automatically on first use: a new file there is the whole job
(docs/adding_environments.md). A catalog row is optional; without one the environment is
"custom" and belongs to no paper collection. A module that fails to import is left out
with its error (`import_errors()`); the rest of the gym still works.
"""

from __future__ import annotations

import csv
import functools
import importlib
import logging
import pkgutil
import re
from pathlib import Path
from typing import NamedTuple

from rlve_jax.gym.env import Environment

log = logging.getLogger(__name__)

CATALOG_PATH = Path(__file__).with_name("catalog.tsv")


class CatalogEntry(NamedTuple):
    name: str
    category: str
    problem: str
    difficulty_mapping: str
    answer_format: str
    reward_rule: str
    special_deps: str
    held_out: bool


@functools.cache
def catalog() -> dict[str, CatalogEntry]:
    """All 400 environments of the original gym, from spec/environments.tsv."""
    with open(CATALOG_PATH, newline="", encoding="utf-8") as f:
        rows = [row for row in csv.DictReader(f, delimiter="\t") if not row["name"].startswith("#")]
    return {
        row["name"]: CatalogEntry(
            row["name"], row["category"], row["problem"], row["difficulty_mapping"],
            row["answer_format"], row["reward_rule"], row["special_deps"], row["held_out"] == "yes",
        )
        for row in rows
    }


# rlve_reference.md (d): exact lists from the original training scripts.
HELD_OUT: tuple[str, ...] = (
    "SubmatrixSumDivisibleCounting", "SmallestBinaryMultiple", "CRT", "GridTriangleCounting",
    "SumXorDivisorNum", "ConvexHull", "LandformGenerationCounting", "EvenDegreeGraphPartitioning",
    "SetSplitting", "Minimum_DominatingInterval", "JugPuzzle", "DynDynamite", "NextPalindromic",
    "BannedPointSupersetPathCounting", "MatrixPermutation_BothDiagonalOne", "MinimumSpanningTree",
    "PalindromePartitionCounting", "FutoshikiPuzzle", "IntegerFactorizationCounting",
    "MostComponentTreeRemovingTwoPaths", "FactorialTrailingZeroCount", "Sum_DivisorNum", "GraMinimaGame",
    "SubgraphIsomorphism", "Clique_IndependentSet_Partitioning_Counting", "SubsetSumSequence",
    "PythagoreanGraph_IndependentSetCounting", "FixedModK_Selection_Counting", "CountdownClose",
    "BAJBytecomputer", "Maximum_IndependentSet_Tree", "PrefixConcatenation", "MaxXorSet",
    "Matrix_BinaryExponentiation", "DoubleStackSorting", "Expression_AddingParenthese_Counting",
    "SumProductDivisorNum", "ImpParty", "Canon", "PolynomialInterpolation", "SkyscraperPuzzle",
    "HalvingChainCounting", "TopologicalSort_MinimalLexicographicalOrder", "CowDanceShow", "MakingGrade",
    "PipelineArrangement", "LandAcquisition", "CirculatingDecimalCounting", "BanyanHeart", "StoneIntervalsGame",
)
C1: tuple[str, ...] = ("Multiplication",)
C4: tuple[str, ...] = ("Division", "EuclidGame", "Multiplication", "Sorting")
C16: tuple[str, ...] = (
    "Division", "EuclidGame", "GCDOne_Counting", "HamiltonianPath", "LampChanging", "LargestConvexPolygon",
    "Multiplication", "PCPPermutation", "Path_NoGoingBack_Counting", "SAT", "ShortestPath", "Sorting",
    "SpiralMatrix", "SubsequenceReversalLNDS", "UndamagedSubmatrixCounting", "WYRLevelingGround",
)
# The 94 training (non-held-out) environments left out of C256 (rlve_reference.md (d)).
NOT_IN_C256: frozenset[str] = frozenset("""
AndOr_Sequence_Counting Axis_KCenter BezoutIdentity BoundedAdjacencyDifference_Permutation_Counting
BubbleSwapLowerBound_PermutationCounting BucketSorting CampsitePuzzle CantorExpansion CatalanNumberMod
ChoHamsters ClearSymmetry CombinationOddSubsequenceCounting ConstructHackInterval DerangementExtension
DifferenceConstraintSystemDAG DifferentColorPairing DigitLISCounting DistinctArrayPermutation
DistinctEdgeColoredCompleteGraphCounting EmperorWorries EnergyStorageMeter FibonacciContainingCounting
FireworkShow GaussianElimination GCDPrime_Counting GoldWashing GridParityConstruction HeapCounting Kakurasu
KiddingMe KnightsAndKnaves LIS_LDS_Concatenation LongestPath MafMafia MatrixPermutation_MainDiagonalOne
MaxMinimum_AfterIntervalAddition MaxMultiplicationFixedSum MaxNoConflictingBombs
Max_TreeConstrainedPermutation_Weight MaxTree_KPathCoverage MaxTreeXorPath MaximumAchromaticNumber
MaximumClique MaximumDivisor Maze MinInorderBinaryTree MinPathCover_DAG MinSumChebyshevDistance MinSumPreXor
MinimalCyclicShift MinimumCost_MaximumFlow Minimum_DominatingSet_Grid MinimumIntervalCoverage
MinimumSteinerTree MinimumUnconflictedGridKMax Minimum_VertexCover MoneyChargingGame MonotonicStack
MostNumEdge_NonSelfIsomorphism MYJ NANDResultCounting NewNimGame NinePuzzle NotContainingStringCounting
OddVisitation PolyaModel PolynomialMinimum ProtectingFlowers QuadMagicItems QuadraticFunctionSegmentation
RangeShrinkingSequenceCounting RecursiveFunction RecursiveSequenceSumConstruction RepeatSequenceLNDS
SameAdjacencyCounting SetCover ShortestPathCountConstruction SingingGirlStory SkaRockGarden SLOElephants
SquareUndamagedPointCounting StringReversalConstruction STUWell StuntFlying SubarraySumXor SubarrayXorSum
SumGCD SumSetMultiplication SumSpanningTreeGCD ThreeStringCommonSubsequenceCounting TopologicalSort
VirusSynthesis WarehouseConstruction WhackAMole
""".split())
# C256 as the paper trained on it, written out (catalog order) so that no later catalog row can join it.
C256: tuple[str, ...] = tuple("""
ABProgramSimulation AddMultiple_Divisible_Counting AdditionTable AlmostCompleteGraphCycleCounting
AntiPalindromicSubstringCounting BEZMinimalistSecurity Binario Binario_NoAdjacencyRequirement BinaryAlternation
BinaryLinearEquation_SolutionCounting BinaryTreeLeafNumExpectation BitEquationCounting BitAndZero_PathCounting
BitwiseOperationSequenceCounting BlockImage BoundedIntervalIntersection BoundedMeanSubarrayCounting
BoundedSubarrayCounting BoxScheduling Bridge CampfireParty CapitalCityEffect CardColoringCounting
CheckAllCycleXorZero Cinema Circuit CirculatingGrid CleaningUp CoinSquareGame ColoringCounting
ConcatenationPartitionCountingSum CongruentEquation Cornfield CountdownEqual Cryptarithmetic
Cube_FixedLocalMaximumCounting CycleCounting DecreasingDigitCounting DegreeFixed_SpanningTree DeltaMinPopcount
DeltaNimGame DifferenceConstraintSystem Differentiate DiscreteLogarithm Disinfection Division
DivisorFlipExpectation DoubleCrossCounting DoublePalindromicStringCounting EightDigitPuzzle EuclidGame
FaceRightWay FBI_BinaryTree Fibonacci Fibtrain FixedOneEdgeNum_SpanningTree FractionalProgramming
FractionalProgramming_BipartiteGraphMatching GasFireExtinguishers GCDFibonacciProduct GcdLcmCounting
GCDOne_Counting GradeRankingCounting GraphContainTreeCounting GraphIsomorphism GridBFS GridColoringCounting
GridComponent GridLocalMinimumCounting HamiltonianPath HamiltonianPathExistence HitoriPuzzle HungryRabbit
HURWarehouseStore IndividualSumBounded_SequenceCounting IntegerProgramming Integral InversionPair
InversionPairK_Counting Josephus KPartition KingSorting KloBlocks Knapsack KosDicing Kth_BinaryTree
Kth_SemiBalancedBracketSequence KthSubsequence KUR LampChanging LargestConvexPolygon
LargestRectangle_AmongPoints LAS LASLaser LCM LDSTwo_Counting LightUpPuzzle LinkBeads LIZ_Lollipop
Longest_DoublePalindrome Longest_MatchingSubsequence LongestMaxDiffBoundedInterval Longest_RepeatedPalindrome
MagicSquarePuzzle MatrixPermutationEquivalence MatrixPooling MatrixRMQCounting MaxDifferentGroupPairDivision
MaxGridPathIntersection MaxMultSplit Max_NonAdjacent_KElementSum MaxPermutation MaxRMQExpectation
MaxSegmentCoverageConstraint MaxSumLDS MaxThreeSquareSum MaxWeightPalindromicSubstring MaxXorPath
MaximumIndependentSetGrid MaximumLexicographicalOrderSubsequence MaximumPointSegmentMatching
Maximum_SubsequenceNum MaximumWeightMatching MinConversionToCycleCost MinCostReducingLNDS MinCostTreeCoverage
MinCubeAssignment MinDivisionSumXor MinKDivisorNumber MinNoSolutionLinearDiophantineEquation MinNonsubstring
MinPairSumMultiplicationPermutation MinSumDistanceSquare MinSwapTwoPermutations MinXorPair Minesweeping
MinimumChromaticNumber MinimumChromaticNumber_SegmentOverlap Minimum_CrossingEdges_GraphPartition
MinimumDirectedSpanningTree Minimum_DominatingSet MinimumFibonacciRepresentation
MinimumHarmoniousChromaticNumber Minimum_MaxAbsSlicer Minimum_MaxSlicer MinimumRatioPath
MinimumSpanningTreeCounting MinimumSumDifferenceSubmatrix MinimumTreeWeightedDominatingAncestor
MinimumWeightedSpanningTree MitterTransportation MixedGraphEulerianCircuit MonochromeBlockCounting MultiDrink
MultipleFlippingGame Multiplication NegativeBase NoAdjacentGirlCounting NoDoubleTripleCounting
NumberPartitionCounting Numbrix ODLDistance PairMoreOneCounting PalembangBridges
PalindromicSubstringNumberCounting PanSolarPanels Path_NoGoingBack_Counting Patrol PCPPermutation
POLPolarization PolynomialFactorization PolynomialRemainder PowerCycle PowerShortcut PowerNest
PrefixProductMODDistinctPermutation PrefixSumMODDistinctPermutation Prefixuffix PreorderTraversal
PrimeGraph_MinimumChromaticNumber QuantumLockPuzzle QueenPlacement RandomRangeMaxExpectation
RangeConstrained_IncreasingSequence_Counting RangeFourSequenceConstruction RootExtraction RoundRobin
RoundTableAssignment RoyalLockCounting SaladBar SalesmanFatigue SAT SCC_Sequence_Counting SecretCowCode
SegmentMinLengthEqual_Counting SegmentTreeSortingCounting SelfPowerSequenceMOD SharedSubstringCounting
ShortestPath ShortestUnicolorSubstring SingleStackSorting SkyscraperSumPuzzle SlidingWindow SmallestCircle
Sorting SpiralMatrix SplittingGame SpyNetwork SquSquarks StarBattle StirlingSecond StoneGame
StringPartitionShuffle SubsequenceReversalLNDS SubsetSum Sudoku SumGCDWithIndividual SumLCM
SumManhattan_CurvedSurface SumMOD SumPHIInterval SumPseudoEuclidean SumTriangleArea SurvoPuzzle TakingPrimeGame
TaskArrangement TetrisAttack ThreeVertexCycleCounting Tournament_LongestPath TransmissionDelay
TreeAddOneEdgeDiameter TreeCenter TreeChangeOneEdgeDiameter TreeColoring Tree_DistanceEqualTriad_Counting
TreeDynamic_XORZeroPath TreeElimination_Expectation TreeEvenPartitioning TreeMaximumVisitedVertex
TreeRandomWalkExpectation TreeTopologicalSequenceCounting TriumphalArch TwiddlePuzzle TwoSAT
TwoSet_AllCoprime_Counting UndamagedSubmatrixCounting ValueDiminishingSelection Vertex_KCenter VisibleLine
WeightedBinaryTree WeightedLIS WIL WYC WYRLevelingGround XorEquationCounting ZeroPrefixSubsetCounting
""".split())
PAPER_COLLECTIONS = ("C1", "C4", "C16", "C256", "C400", "HELD_OUT")
CUSTOM_CATEGORY = "custom"  # environments with no catalog row
_NAME = re.compile(r"[A-Za-z0-9_.-]+")  # identifiers go into comma-separated lists and metric keys


@functools.cache
def collections() -> dict[str, tuple[str, ...]]:
    """The paper's environment lists: C1, C4, C16, C256, C400 (the 400 of the original gym) and HELD_OUT.

    Explicit lists: an environment added later (custom or with a new catalog row) joins none of them.
    """
    paper = frozenset(C256) | NOT_IN_C256 | frozenset(HELD_OUT)
    return {
        "C1": C1,
        "C4": C4,
        "C16": C16,
        "C256": C256,
        "C400": tuple(n for n in catalog() if n in paper),
        "HELD_OUT": HELD_OUT,
    }


@functools.cache
def _scan() -> tuple[dict[str, type[Environment]], dict[str, str]]:
    """Import every module of the `environments` package; collect the named subclasses.

    Returns (name -> class, module -> error). A module that fails to import, or defines an
    environment that cannot be registered, is left out with its error; the rest of the gym works.
    """
    from rlve_jax.gym import environments

    found: dict[str, type[Environment]] = {}
    errors: dict[str, str] = {}
    for module_info in pkgutil.iter_modules(environments.__path__):
        module_name = f"{environments.__name__}.{module_info.name}"
        try:
            module = importlib.import_module(module_name)
        except Exception as error:  # noqa: BLE001 -- one broken file must not take the gym down
            errors[module_name] = f"{type(error).__name__}: {error}"
            log.warning("environment module %s failed to import: %s", module_name, errors[module_name])
            continue
        for value in vars(module).values():
            if not (isinstance(value, type) and issubclass(value, Environment) and value.name
                    and value.__module__ == module.__name__):
                continue
            problem = _registration_problem(value, found)
            if problem:
                errors[module_name] = problem
                log.warning("environment module %s: %s", module_name, problem)
            else:
                found[value.name] = value
    return found, errors


def _registration_problem(cls: type[Environment], found: dict[str, type[Environment]]) -> str | None:
    """Why `cls` cannot be registered, or None."""
    name = cls.name
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        return f"{cls.__name__}.name={name!r} is not an identifier (letters, digits, _ . -)"
    if name in PAPER_COLLECTIONS:
        return f"{cls.__name__}.name={name!r} is a collection name"
    if name in found:
        return f"environment {name!r} is already defined in {found[name].__module__}"
    return None


def _implemented() -> dict[str, type[Environment]]:
    return _scan()[0]


def import_errors() -> dict[str, str]:
    """Modules of `environments` left out of the registry, with their errors."""
    return dict(_scan()[1])


def names() -> list[str]:
    """Identifiers of every implemented environment: catalog order, then custom ones sorted."""
    implemented = _implemented()
    known = catalog()
    return [n for n in known if n in implemented] + sorted(n for n in implemented if n not in known)


def entry(name: str) -> CatalogEntry:
    """The catalog row of an environment; a custom one (no row) gets category "custom"."""
    if name in catalog():
        return catalog()[name]
    cls = _implemented().get(name)
    if cls is None:
        raise KeyError(f"unknown environment {name!r}")
    summary = (cls.__doc__ or "").strip().split("\n")[0]
    return CatalogEntry(name, CUSTOM_CATEGORY, summary, "", "", "", "none", False)


def is_implemented(name: str) -> bool:
    return name in _implemented()


def make(name: str) -> Environment:
    """An environment instance by its exact original identifier."""
    return make_all([name])[0]


def make_all(env_names: list[str] | tuple[str, ...]) -> list[Environment]:
    """Instances for a list of identifiers; one error lists everything missing (and broken modules)."""
    implemented = _implemented()
    missing = [n for n in env_names if n not in implemented]
    if missing:
        unknown = [n for n in missing if n not in catalog()]
        detail = f" ({len(unknown)} not in the catalog either: {unknown})" if unknown else ""
        broken = import_errors()
        if broken:
            detail += "; modules that failed to import: " + "; ".join(f"{m}: {e}" for m, e in broken.items())
        raise KeyError(f"{len(missing)} environments are not implemented: {missing}{detail}")
    return [implemented[n]() for n in env_names]


def resolve(spec: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """A collection name ("C16"), a comma-separated list of identifiers and collections
    ("C16,MyEnv"), or a list of names -> identifiers (first occurrence order, no repeats)."""
    parts = [s.strip() for s in spec.split(",")] if isinstance(spec, str) else list(spec)
    result: list[str] = []
    for part in parts:
        if part:
            result += collections().get(part, (part,))
    if not result:
        raise ValueError("empty environment list")
    return tuple(dict.fromkeys(result))

"""Environment registry: exact original identifiers, the catalog, and the paper's collections.

Every `Environment` subclass with a `name` defined in a module of the `environments`
package is registered automatically on first use.
"""

from __future__ import annotations

import csv
import functools
import importlib
import pkgutil
from pathlib import Path
from typing import NamedTuple

from rlve_jax.env import Environment

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
# The 94 training (non-held-out) environments left out of C256.
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


@functools.cache
def collections() -> dict[str, tuple[str, ...]]:
    """Named environment lists: C1, C4, C16, C256, C400 and HELD_OUT (catalog order where unordered)."""
    every = tuple(catalog())
    held_out = frozenset(HELD_OUT)
    return {
        "C1": C1,
        "C4": C4,
        "C16": C16,
        "C256": tuple(n for n in every if n not in held_out and n not in NOT_IN_C256),
        "C400": every,
        "HELD_OUT": HELD_OUT,
    }


@functools.cache
def _implemented() -> dict[str, type[Environment]]:
    """Import every module of the `environments` package and collect the named subclasses."""
    import environments

    found: dict[str, type[Environment]] = {}
    for module_info in pkgutil.iter_modules(environments.__path__):
        module = importlib.import_module(f"environments.{module_info.name}")
        for value in vars(module).values():
            if (isinstance(value, type) and issubclass(value, Environment) and value.name
                    and value.__module__ == module.__name__):
                if value.name in found:
                    raise RuntimeError(f"environment {value.name!r} is defined twice "
                                       f"({found[value.name].__module__} and {module.__name__})")
                found[value.name] = value
    unknown = sorted(set(found) - set(catalog()))
    if unknown:
        raise RuntimeError(f"environments not in the catalog (check the identifier spelling): {unknown}")
    return found


def names() -> list[str]:
    """Identifiers of every implemented environment, in catalog order."""
    implemented = _implemented()
    return [name for name in catalog() if name in implemented]


def is_implemented(name: str) -> bool:
    return name in _implemented()


def make(name: str) -> Environment:
    """An environment instance by its exact original identifier."""
    return make_all([name])[0]


def make_all(env_names: list[str] | tuple[str, ...]) -> list[Environment]:
    """Instances for a list of identifiers; one error lists everything missing."""
    implemented = _implemented()
    missing = [n for n in env_names if n not in implemented]
    if missing:
        unknown = [n for n in missing if n not in catalog()]
        detail = f" ({len(unknown)} unknown identifiers: {unknown})" if unknown else ""
        raise KeyError(f"{len(missing)} environments are not implemented yet: {missing}{detail}")
    return [implemented[n]() for n in env_names]


def resolve(spec: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """A collection name ("C16"), a comma-separated list, or a list of names -> identifiers."""
    if isinstance(spec, str):
        if spec in collections():
            return collections()[spec]
        spec = [s.strip() for s in spec.split(",") if s.strip()]
    result = tuple(spec)
    if not result:
        raise ValueError("empty environment list")
    return result

"""The phrasing the offline planner knows, apart from a model's own vocabulary.

Pure data: filler words a question may hold without changing its meaning, and the words
that say how to aggregate, group, rank, compare and filter.
"""

from __future__ import annotations

from dataagent.semantic.plan import Aggregation

# Words that carry no meaning of their own in a data question.
STOP = frozenset(
    {
        *("a", "an", "the", "of", "for", "in", "on", "at", "to", "from", "with", "into"),
        *("what", "whats", "is", "are", "was", "were", "be", "been", "being", "am"),
        *("show", "me", "give", "list", "tell", "display", "get", "find", "see", "view"),
        *("our", "my", "we", "us", "i", "you", "your", "do", "does", "did", "have", "has"),
        *("had", "how", "which", "who", "whom", "whose", "where", "when", "there", "their"),
        *("them", "they", "it", "its", "that", "these", "those", "please", "can", "could"),
        *("would", "will", "should", "and", "or", "all", "any", "some", "overall"),
        *("altogether", "combined", "broken", "down", "split", "grouped", "group", "so"),
        *("many", "made", "make", "got", "placed", "happened", "come", "came", "currently"),
        *("right", "now", "ever", "just", "only", "also", "both", "as", "well", "chart"),
        *("plot", "graph", "table", "report", "summary", "figure", "figures", "stats"),
        *("statistics", "breakdown", "like", "look", "looks", "looking", "exist", "exists"),
        *("available", "ranked", "rank", "ranking", "sorted", "descending", "ascending"),
        *("order", "ordered", "name", "names", "names", "value", "values", "data", "up"),
        *("then", "than", "did", "doing", "has", "having", "whole", "entire", "period"),
        *("what's", "one", "ones", "kind", "kinds", "along", "respective", "its"),
        *("here", "versus", "vs", "compare", "compared", "comparison", "recorded"),
        *("registered", "do"),
        *("live", "lives", "living", "located", "based", "situated", "currently", "belong"),
        *("belongs", "belonging", "come", "comes", "coming"),
        *("over", "during", "within", "throughout", "appeared", "appear", "appears"),
    }
)

AGGREGATIONS: dict[tuple[str, ...], Aggregation] = {
    ("total",): "sum",
    ("sum",): "sum",
    ("sum", "of"): "sum",
    ("average",): "avg",
    ("avg",): "avg",
    ("mean",): "avg",
    ("typical",): "avg",
    ("minimum",): "min",
    ("min",): "min",
    ("maximum",): "max",
    ("max",): "max",
    ("how", "many"): "count",
    ("number", "of"): "count",
    ("count", "of"): "count",
    ("count",): "count",
    ("distinct",): "count_distinct",
    ("unique",): "count_distinct",
    ("different",): "count_distinct",
}

GROUPING = frozenset(
    {
        ("by",),
        ("per",),
        ("each",),
        ("every",),
        ("for", "each"),
        ("for", "every"),
        ("in", "each"),
        ("within", "each"),
        ("across",),
        ("broken", "down", "by"),
        ("split", "by"),
        ("grouped", "by"),
        ("group", "by"),
        ("breakdown", "by"),
    }
)

# Superlatives: the first n by a value, highest (desc) or lowest (asc) first.
TOP_DESC = frozenset({"top", "best", "highest", "largest", "biggest", "most", "greatest"})
TOP_ASC = frozenset({"bottom", "worst", "lowest", "smallest", "least", "fewest"})
# Superlatives of time: ranked by a date ("which store opened first").
TOP_EARLIEST = frozenset({"first", "earliest"})
TOP_LATEST = frozenset({"latest"})
# A superlative that, with nothing to rank, is a plain aggregate ("the highest unit price").
SUPERLATIVE_AGGREGATE: dict[str, Aggregation] = {
    "highest": "max",
    "largest": "max",
    "biggest": "max",
    "greatest": "max",
    "lowest": "min",
    "smallest": "min",
}

# Comparisons before a number: words -> operator.
COMPARISONS: dict[tuple[str, ...], str] = {
    ("more", "than"): ">",
    ("greater", "than"): ">",
    ("higher", "than"): ">",
    ("larger", "than"): ">",
    ("bigger", "than"): ">",
    ("over",): ">",
    ("above",): ">",
    ("exceeding",): ">",
    ("exceeds",): ">",
    ("exceed",): ">",
    ("at", "least"): ">=",
    ("no", "less", "than"): ">=",
    ("no", "fewer", "than"): ">=",
    ("less", "than"): "<",
    ("fewer", "than"): "<",
    ("lower", "than"): "<",
    ("smaller", "than"): "<",
    ("under",): "<",
    ("below",): "<",
    ("at", "most"): "<=",
    ("no", "more", "than"): "<=",
    ("up", "to"): "<=",
    ("exactly",): "=",
    ("equal", "to"): "=",
    ("equals",): "=",
    ("between",): "between",
}
# After a number: "5 or more".
TRAILING_COMPARISONS: dict[tuple[str, ...], str] = {
    ("or", "more"): ">=",
    ("or", "above"): ">=",
    ("or", "over"): ">=",
    ("or", "higher"): ">=",
    ("or", "less"): "<=",
    ("or", "fewer"): "<=",
    ("or", "below"): "<=",
    ("or", "under"): "<=",
    ("or", "lower"): "<=",
}
MULTIPLIERS = {"k": 1_000, "thousand": 1_000, "m": 1_000_000, "million": 1_000_000}
MULTIPLIERS["billion"] = 1_000_000_000

SHARE = frozenset(
    {
        ("share", "of"),
        ("percentage", "of"),
        ("percent", "of"),
        ("proportion", "of"),
        ("fraction", "of"),
        ("share",),
        ("contribution", "of"),
    }
)
NEGATION = frozenset(
    {
        ("not",),
        ("excluding",),
        ("exclude",),
        ("except",),
        ("except", "for"),
        ("other", "than"),
        ("without",),
        ("non",),
    }
)
LIST = frozenset({"list", "which", "what", "name", "enumerate", "show"})
OTHERS = frozenset(
    {
        ("with", "the", "others"),
        ("with", "the", "other"),
        ("to", "the", "others"),
        ("to", "the", "other"),
        ("against", "the", "others"),
        ("against", "the", "rest"),
        ("with", "the", "rest"),
        ("to", "the", "rest"),
        ("vs", "the", "rest"),
        ("vs", "the", "others"),
        ("versus", "the", "rest"),
        ("versus", "the", "others"),
        ("versus", "the", "other"),
        ("vs", "the", "other"),
        ("against", "the", "other"),
        ("and", "the", "other"),
        ("vs", "others"),
        ("vs", "rest"),
        ("with", "others"),
        ("to", "others"),
        ("and", "the", "others"),
        ("and", "the", "rest"),
    }
)
COMPARE_LEADS = frozenset(
    {
        ("vs",),
        ("versus",),
        ("compared", "to"),
        ("compared", "with"),
        ("compare", "to"),
        ("compare", "with"),
        ("against",),
        ("relative", "to"),
        ("than",),
        ("from",),
    }
)
# After a lead: words naming the period compared with.
PREVIOUS_YEAR = frozenset(
    {
        ("last", "year"),
        ("previous", "year"),
        ("prior", "year"),
        ("the", "previous", "year"),
        ("the", "prior", "year"),
        ("the", "year", "before"),
        ("a", "year", "ago"),
        ("a", "year", "earlier"),
        ("the", "same", "period", "last", "year"),
        ("same", "period", "last", "year"),
        ("the", "same", "period", "a", "year", "ago"),
        ("the", "same", "time", "last", "year"),
        ("same", "time", "last", "year"),
        ("the", "same", "period", "the", "previous", "year"),
        ("the", "same", "period", "of", "the", "previous", "year"),
        ("the", "same", "period", "of", "last", "year"),
        ("a", "year", "before"),
    }
)
PREVIOUS_PERIOD = frozenset(
    {
        ("the", "previous", "period"),
        ("previous", "period"),
        ("the", "prior", "period"),
        ("prior", "period"),
        ("the", "period", "before"),
        ("before",),
    }
)
OVER = {
    ("year", "over", "year"): "previous_year",
    ("yoy",): "previous_year",
    ("quarter", "over", "quarter"): "quarter",
    ("qoq",): "quarter",
    ("month", "over", "month"): "month",
    ("mom",): "month",
    ("week", "over", "week"): "week",
    ("wow",): "week",
}

# Words that add a column to a list: "the stores in the West with their square footage".
ATTRIBUTES = frozenset(
    {
        ("with", "their"),
        ("and", "their"),
        ("with", "its"),
        ("and", "its"),
        ("along", "with", "their"),
        ("including", "their"),
        ("together", "with", "their"),
    }
)
# A sign is a comparison with zero: "a negative unit margin".
SIGNS = {"negative": "<", "positive": ">"}
# Words saying what a comparison shows; meaningless without one.
CHANGE_WORDS = frozenset({"change", "changes", "growth", "difference", "increase", "decrease"})
# "Show a few orders": some rows of a dataset, every column.
SAMPLE = frozenset({"few", "sample", "examples", "example"})
SAMPLE_ROWS = 10
# Words that ask for an order: "in descending order of age", "sorted by rating".
SORTS: dict[tuple[str, ...], str] = {
    ("in", "descending", "order", "of"): "desc",
    ("in", "descending", "order", "by"): "desc",
    ("in", "ascending", "order", "of"): "asc",
    ("in", "ascending", "order", "by"): "asc",
    ("in", "order", "of"): "asc",
    ("ordered", "by"): "asc",
    ("order", "by"): "asc",
    ("sorted", "by"): "asc",
    ("sort", "by"): "asc",
    ("ranked", "by"): "desc",
    ("ordered", "descending", "by"): "desc",
    ("ordered", "ascending", "by"): "asc",
    ("sorted", "descending", "by"): "desc",
    ("sorted", "ascending", "by"): "asc",
}
# Words that give the direction of the order asked for, after it.
DIRECTIONS: dict[tuple[str, ...], str] = {
    ("descending",): "desc",
    ("desc",): "desc",
    ("in", "descending", "order"): "desc",
    ("ascending",): "asc",
    ("asc",): "asc",
    ("in", "ascending", "order"): "asc",
    ("from", "highest", "to", "lowest"): "desc",
    ("from", "lowest", "to", "highest"): "asc",
    ("from", "largest", "to", "smallest"): "desc",
    ("from", "smallest", "to", "largest"): "asc",
    ("from", "oldest", "to", "youngest"): "desc",
    ("from", "youngest", "to", "oldest"): "asc",
    ("in", "alphabetical", "order"): "asc",
    ("alphabetically",): "asc",
    ("descending", "by", "value"): "desc",
}
# Words that ask for an amount of money or goods: fillers beside a metric ("what revenue
# did we earn"), but when nothing to compute was found, what they ask is not known ("how
# much did corporate customers spend").
VALUE_WORDS = frozenset(
    {
        *("much", "earn", "earned", "earns", "generate", "generated", "bring", "brought"),
        *("spend", "spent", "spends", "buy", "bought", "buys", "sell", "sold", "sells"),
        *("pay", "paid", "pays", "cost", "costs", "worth"),
    }
)

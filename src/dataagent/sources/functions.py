"""Which functions a query may call: a per-dialect allow-list, grouped by what analysts use.

Pure data plus lookups. A name is allowed when it is on its dialect's list below, a syntax form
(`SYNTAX_FORMS`: words sqlglot writes with parentheses that are grammar, not catalog
functions), or a table function of `TABLE_FUNCTIONS` (each of which is also on the list).
Everything else is refused by name: a deny-list can never be complete, an allow-list only has
to be reviewed. Each list holds names of the installed catalogs (PostgreSQL 15's `pg_proc`,
DuckDB 2.0's `duckdb_functions()`, SQLite 3.40's `pragma_function_list`, MariaDB 10.11's help
tables), and `tests/integration/sources/test_function_catalogs.py` walks those catalogs and
fails when an allowed function can execute SQL text, touch files, change state or sleep.
Names are compared lower-cased.
"""

from __future__ import annotations

from typing import Final

from dataagent.dialects import Dialect

# Category key -> the words a person reads (docs and refusal messages), in display order.
CATEGORIES: Final[dict[str, str]] = {
    "aggregate": "aggregates",
    "window": "window functions",
    "math": "math",
    "string": "strings",
    "datetime": "dates and times",
    "conditional": "conditionals and NULL handling",
    "conversion": "casts and conversion",
    "json": "JSON reading",
    "array": "arrays and lists",
    "regex": "regular expressions",
    "misc": "other",
}

DIALECT_TITLES: Final[dict[Dialect, str]] = {
    "postgresql": "PostgreSQL",
    "sqlite": "SQLite",
    "duckdb": "DuckDB",
    "mysql": "MySQL / MariaDB",
}


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


ALLOWED_FUNCTIONS: Final[dict[Dialect, dict[str, frozenset[str]]]] = {
    "postgresql": {
        "aggregate": _names(
            """array_agg avg bit_and bit_or bit_xor bool_and bool_or corr count covar_pop
            covar_samp every json_agg json_object_agg jsonb_agg jsonb_object_agg max min mode
            percentile_cont percentile_disc regr_avgx regr_avgy regr_count regr_intercept regr_r2
            regr_slope regr_sxx regr_sxy regr_syy stddev stddev_pop stddev_samp string_agg sum
            var_pop var_samp variance"""
        ),
        "window": _names(
            """cume_dist dense_rank first_value lag last_value lead nth_value ntile percent_rank
            rank row_number"""
        ),
        "math": _names(
            """abs acos acosd acosh asin asind asinh atan atan2 atan2d atand atanh cbrt ceil
            ceiling cos cosd cosh cot cotd degrees div exp factorial floor gcd lcm ln log log10
            min_scale mod pi pow power radians random round scale sign sin sind sinh sqrt tan
            tand tanh trim_scale trunc width_bucket"""
        ),
        "string": _names(
            """ascii bit_length btrim char_length character_length chr concat concat_ws format
            initcap left length lower lpad ltrim md5 normalize octet_length overlay position
            repeat replace reverse right rpad rtrim split_part starts_with strpos substr
            substring translate upper"""
        ),
        "datetime": _names(
            """age clock_timestamp date_bin date_part date_trunc extract isfinite justify_days
            justify_hours justify_interval make_date make_interval make_time make_timestamp
            make_timestamptz now statement_timestamp timezone transaction_timestamp"""
        ),
        "conditional": _names("num_nonnulls num_nulls"),
        "conversion": _names("date decode encode to_char to_date to_hex to_number to_timestamp"),
        "json": _names(
            """array_to_json json_array_elements json_array_elements_text json_array_length
            json_build_array json_build_object json_each json_each_text json_extract_path
            json_extract_path_text json_object json_object_keys json_populate_record
            json_populate_recordset json_strip_nulls json_to_record json_to_recordset json_typeof
            jsonb_array_elements jsonb_array_elements_text jsonb_array_length jsonb_build_array
            jsonb_build_object jsonb_each jsonb_each_text jsonb_extract_path
            jsonb_extract_path_text jsonb_object jsonb_object_keys jsonb_path_exists
            jsonb_path_match jsonb_path_query jsonb_path_query_array jsonb_path_query_first
            jsonb_populate_record jsonb_populate_recordset jsonb_pretty jsonb_strip_nulls
            jsonb_to_record jsonb_to_recordset jsonb_typeof row_to_json to_json to_jsonb"""
        ),
        "array": _names(
            """array_append array_cat array_dims array_length array_lower array_ndims
            array_position array_positions array_prepend array_remove array_replace
            array_to_string array_upper cardinality generate_series generate_subscripts
            string_to_array string_to_table trim_array unnest"""
        ),
        "regex": _names(
            """regexp_count regexp_instr regexp_like regexp_match regexp_matches regexp_replace
            regexp_split_to_array regexp_split_to_table regexp_substr"""
        ),
        "misc": _names("gen_random_uuid pg_typeof sha224 sha256 sha384 sha512"),
    },
    "sqlite": {
        "aggregate": _names(
            "avg count group_concat json_group_array json_group_object max min sum total"
        ),
        "window": _names(
            """cume_dist dense_rank first_value lag last_value lead nth_value ntile percent_rank
            rank row_number"""
        ),
        "math": _names(
            """abs acos acosh asin asinh atan atan2 atanh ceil ceiling cos cosh degrees exp floor
            ln log log10 log2 mod pi pow power radians random round sign sin sinh sqrt tan tanh
            trunc"""
        ),
        "string": _names(
            """char format glob hex instr length like lower ltrim printf quote replace rtrim
            soundex substr substring trim unicode upper"""
        ),
        "datetime": _names(
            """current_date current_time current_timestamp date datetime julianday strftime time
            unixepoch"""
        ),
        "conditional": _names("coalesce ifnull iif nullif"),
        "conversion": _names("typeof"),
        # -> and ->> are how SQLite names its JSON operators to the authorizer.
        "json": _names(
            """-> ->> json json_array json_array_length json_extract json_object json_quote
            json_type json_valid"""
        ),
        "array": frozenset(),
        "regex": frozenset(),
        "misc": frozenset(),
    },
    "duckdb": {
        "aggregate": _names(
            """any_value approx_count_distinct approx_quantile arbitrary arg_max arg_min argmax
            argmin array_agg avg bit_and bit_or bit_xor bool_and bool_or corr count count_if
            count_star countif covar_pop covar_samp entropy favg first fsum geomean
            geometric_mean group_concat histogram kahan_sum kurtosis kurtosis_pop last list
            listagg mad max max_by mean median min min_by mode product quantile quantile_cont
            quantile_disc regr_avgx regr_avgy regr_count regr_intercept regr_r2 regr_slope
            regr_sxx regr_sxy regr_syy reservoir_quantile sem skewness stddev stddev_pop
            stddev_samp string_agg sum sumkahan var_pop var_samp variance wavg weighted_avg"""
        ),
        "window": _names(
            """cume_dist dense_rank first_value lag last_value lead nth_value ntile percent_rank
            rank rank_dense row_number"""
        ),
        "math": _names(
            """abs acos acosh asin asinh atan atan2 atanh bit_count cbrt ceil ceiling cos cosh cot
            degrees even exp factorial fdiv floor fmod gamma gcd greatest_common_divisor isfinite
            isinf isnan lcm least_common_multiple lgamma ln log log10 log2 mod nextafter pi pow
            power radians random round round_even roundbankers sign signbit sin sinh sqrt tan
            tanh trunc xor"""
        ),
        "string": _names(
            """ascii bit_length chr concat concat_ws contains damerau_levenshtein ends_with format
            hamming hash instr jaccard jaro_similarity jaro_winkler_similarity lcase left len
            length levenshtein lower lpad ltrim md5 mismatches nfc_normalize ord position prefix
            printf repeat replace reverse right rpad rtrim sha1 sha256 split split_part
            starts_with str_split string_split strip_accents strlen strpos substr substring
            suffix translate trim ucase unicode upper"""
        ),
        "datetime": _names(
            """age ago century current_date date_add date_diff date_part date_sub date_trunc
            datediff datepart datesub datetrunc day dayname dayofmonth dayofweek dayofyear
            days_in_month decade epoch epoch_ms epoch_ns epoch_us era get_current_time
            get_current_timestamp hour isodow isoyear julian last_day make_date make_time
            make_timestamp make_timestamptz microsecond millennium millisecond minute month
            monthname nanosecond now quarter second strftime strptime time_bucket timezone
            timezone_hour timezone_minute to_centuries to_days to_decades to_hours
            to_microseconds to_millennia to_milliseconds to_minutes to_months to_quarters
            to_seconds to_timestamp to_weeks to_years today transaction_timestamp try_strptime
            week weekday weekofyear year yearweek"""
        ),
        "conditional": _names("greatest if least nullif"),
        "conversion": _names(
            """base64 bin decode encode from_base64 from_binary from_hex hex to_base64 to_binary
            to_hex typeof unbin unhex"""
        ),
        "json": _names(
            """array_to_json from_json json json_array json_array_length json_contains json_exists
            json_extract json_extract_path json_extract_path_text json_extract_string
            json_group_array json_group_object json_keys json_object json_quote json_structure
            json_type json_valid json_value row_to_json to_json"""
        ),
        # list_aggregate and its aliases call an aggregate named in a string; DuckDB resolves
        # the name among aggregate functions only, and the catalog test checks every one of
        # those is free of side effects.
        "array": _names(
            """aggregate apply array_aggr array_aggregate array_append array_apply array_cat
            array_concat array_contains array_distinct array_extract array_filter array_has
            array_has_all array_has_any array_indexof array_intersect array_length array_position
            array_prepend array_reduce array_reverse array_reverse_sort array_select array_slice
            array_sort array_to_string array_transform array_unique array_value array_where
            array_zip cardinality element_at filter flatten generate_series generate_subscripts
            list_aggr list_aggregate list_append list_apply list_avg list_cat list_concat
            list_contains list_count list_distinct list_element list_extract list_filter
            list_first list_has list_has_all list_has_any list_indexof list_intersect list_last
            list_max list_median list_min list_mode list_pack list_position list_prepend
            list_reduce list_reverse list_reverse_sort list_select list_slice list_sort list_sum
            list_transform list_unique list_value list_where list_zip map map_entries
            map_extract map_extract_value map_from_entries map_keys map_values range reduce row
            struct_extract struct_pack unnest"""
        ),
        "regex": _names(
            """regexp_escape regexp_extract regexp_extract_all regexp_full_match regexp_matches
            regexp_replace regexp_split_to_array regexp_split_to_table str_split_regex
            string_split_regex"""
        ),
        "misc": _names("gen_random_uuid uuid"),
    },
    "mysql": {
        "aggregate": _names(
            """avg bit_and bit_or bit_xor count group_concat json_arrayagg json_objectagg max min
            std stddev stddev_pop stddev_samp sum var_pop var_samp variance"""
        ),
        "window": _names(
            """cume_dist dense_rank first_value lag last_value lead median nth_value ntile
            percent_rank percentile_cont percentile_disc rank row_number"""
        ),
        "math": _names(
            """abs acos asin atan atan2 bit_count ceil ceiling conv cos cot crc32 degrees exp floor
            ln log log10 log2 mod oct pi pow power radians rand round sign sin sqrt tan
            truncate"""
        ),
        "string": _names(
            """ascii bin bit_length char char_length character_length chr concat concat_ws elt
            export_set field find_in_set format from_base64 hex insert instr lcase left length
            locate lower lpad ltrim make_set md5 mid octet_length ord position quote repeat
            replace reverse right rpad rtrim sha sha1 sha2 soundex space strcmp substr substring
            substring_index to_base64 trim ucase unhex upper"""
        ),
        "datetime": _names(
            """adddate addtime convert_tz curdate current_date current_time current_timestamp
            curtime date date_add date_format date_sub datediff day dayname dayofmonth dayofweek
            dayofyear extract from_days from_unixtime get_format hour last_day localtime
            localtimestamp makedate maketime microsecond minute month monthname now period_add
            period_diff quarter sec_to_time second str_to_date subdate subtime sysdate
            time_format time_to_sec timediff timestampadd timestampdiff to_days to_seconds
            unix_timestamp utc_date utc_time utc_timestamp week weekday weekofyear year
            yearweek"""
        ),
        "conditional": _names("coalesce greatest if ifnull interval isnull least nullif nvl nvl2"),
        "conversion": _names("cast convert"),
        "json": _names(
            """json_array json_compact json_contains json_contains_path json_depth json_detailed
            json_equals json_exists json_extract json_keys json_length json_loose json_normalize
            json_object json_overlaps json_pretty json_query json_quote json_search json_table
            json_type json_unquote json_valid json_value"""
        ),
        "array": frozenset(),
        "regex": _names("regexp_instr regexp_replace regexp_substr"),
        "misc": _names("inet6_aton inet6_ntoa inet_aton inet_ntoa is_ipv4 is_ipv6 uuid"),
    },
}

# Grammar that sqlglot writes as `WORD(...)` but that is not a catalog function.
SYNTAX_FORMS: Final[dict[Dialect, frozenset[str]]] = {
    "postgresql": _names(
        """all any array cast coalesce current_time exists greatest grouping least localtime
        localtimestamp nullif row some trim"""
    ),
    "sqlite": _names("cast exists"),
    "duckdb": _names(
        "all any array cast coalesce columns exists extract grouping grouping_id interval try_cast"
    ),
    "mysql": _names("all any columns exists row"),
}

# Table-valued functions allowed in FROM; each is also on its dialect's allow-list.
TABLE_FUNCTIONS: Final[dict[Dialect, frozenset[str]]] = {
    "postgresql": _names(
        """generate_series generate_subscripts json_array_elements json_array_elements_text
        json_each json_each_text json_populate_recordset json_to_recordset
        jsonb_array_elements jsonb_array_elements_text jsonb_each jsonb_each_text
        jsonb_populate_recordset jsonb_to_recordset regexp_matches string_to_table unnest"""
    ),
    "duckdb": _names("generate_series range unnest"),
    "mysql": _names("json_table"),
    # SQLite's table-valued functions are virtual tables the read-only authorizer refuses.
    "sqlite": frozenset(),
}

_CATEGORY_OF: Final[dict[Dialect, dict[str, str]]] = {
    dialect: {name: key for key, names in groups.items() for name in names}
    for dialect, groups in ALLOWED_FUNCTIONS.items()
}


def allowed_functions(dialect: Dialect) -> frozenset[str]:
    """Every catalog function a query may call in a dialect (syntax forms not included)."""
    return frozenset(_CATEGORY_OF[dialect])


def is_allowed_function(name: str, dialect: Dialect) -> bool:
    """True when a query may call `name` in `dialect` (a listed function or a syntax form)."""
    lowered = name.lower()
    return lowered in _CATEGORY_OF[dialect] or lowered in SYNTAX_FORMS[dialect]


def is_table_function(name: str, dialect: Dialect) -> bool:
    """True when `name` may be used as a table in FROM."""
    return name.lower() in TABLE_FUNCTIONS[dialect]


def category_of(name: str, dialect: Dialect) -> str | None:
    """The category key an allowed function is listed under, or None."""
    return _CATEGORY_OF[dialect].get(name.lower())


def refusal_reason(name: str, dialect: Dialect) -> str:
    """Why `name` may not be called: it is not on the dialect's allow-list, and what is."""
    kinds = ", ".join(title for key, title in CATEGORIES.items() if ALLOWED_FUNCTIONS[dialect][key])
    return (
        f"function {name}() is not allowed: it is not on the {DIALECT_TITLES[dialect]} "
        f"allow-list of analysis functions ({kinds}; see docs/sql-safety.md)"
    )


def allow_list_markdown() -> str:
    """The allow-lists as the Markdown section of docs/sql-safety.md (a test keeps them equal)."""
    lines: list[str] = []
    for dialect, title in DIALECT_TITLES.items():
        lines += [f"#### {title}", "", "| category | functions |", "|---|---|"]
        for key, label in CATEGORIES.items():
            names = ALLOWED_FUNCTIONS[dialect][key]
            if names:
                lines.append(f"| {label} | {_code_list(names)} |")
        lines.append(f"| syntax forms | {_code_list(SYNTAX_FORMS[dialect])} |")
        tables = TABLE_FUNCTIONS[dialect]
        lines.append(f"| table functions (FROM) | {_code_list(tables) if tables else 'none'} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _code_list(names: frozenset[str]) -> str:
    return ", ".join(f"`{name}`" for name in sorted(names))

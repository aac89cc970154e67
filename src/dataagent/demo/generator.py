"""Generate the demo retailer's data: deterministic for a seed, vectorised with numpy.

Two fixed years of sales (2024-01-01 to 2025-12-31) across ten stores, with weekly and
holiday seasonality, and one store (Houston) that sells less per order, discounts more,
gets more returns and loses traffic over the two years.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dataagent.demo.catalog import (
    CATEGORIES,
    EMAIL_DOMAINS,
    FIRST_NAMES,
    HOUSTON,
    LAST_NAMES,
    SEGMENTS,
    STORES,
    TIERS,
)
from dataagent.demo.schema import TABLES

FIRST_DAY = np.datetime64("2024-01-01")
LAST_DAY = np.datetime64("2025-12-31")
N_CUSTOMERS = 4_000
N_ORDERS = 33_000  # with ~2.7 lines per order this gives ~100k order lines
PRICE_RISE_ON = np.datetime64("2025-01-01")  # list prices rose 3% on this day
PRICE_2024_FACTOR = 0.97

# How Houston underperforms (its falling traffic is `trend` in catalog.STORES).
HOUSTON_LINES_FACTOR = 0.85  # fewer lines per order
HOUSTON_PRICE_TILT = 0.10  # baskets lean towards cheaper products
HOUSTON_RETURN_FACTOR = 2.2  # more orders come back
HOUSTON_EXTRA_DISCOUNT = 0.12  # more lines are discounted

_MONTH_FACTOR = np.array([0.78, 0.80, 0.92, 0.95, 1.0, 1.0, 1.02, 1.10, 0.97, 1.0, 1.30, 1.75])
_WEEKDAY_FACTOR = np.array([0.85, 0.85, 0.90, 0.95, 1.10, 1.35, 1.15])  # Monday first
_SPECIAL_DAYS = {  # Black Friday weekends, Cyber Mondays, Christmas, New Year
    "2024-11-29": 3.0, "2024-11-30": 1.8, "2024-12-01": 1.6, "2024-12-02": 1.8,
    "2025-11-28": 3.0, "2025-11-29": 1.8, "2025-11-30": 1.6, "2025-12-01": 1.8,
    "2024-12-25": 0.15, "2025-12-25": 0.15, "2024-01-01": 0.5, "2025-01-01": 0.5,
}  # fmt: skip
_DISCOUNTS = np.array([0.05, 0.10, 0.15, 0.20, 0.25, 0.30, 0.40, 0.50])
_DISCOUNT_WEIGHTS = np.array([0.22, 0.25, 0.15, 0.15, 0.08, 0.08, 0.04, 0.03])
_IN_STORE_HOURS = np.array([0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 5, 7, 9, 8, 7, 7, 8, 9, 9, 7, 4, 0, 0, 0])
_ONLINE_HOURS = np.array([2, 1, 1, 1, 1, 1, 2, 3, 4, 5, 5, 6, 7, 6, 5, 5, 6, 7, 8, 9, 10, 9, 6, 3])
_PHONE_HOURS = np.array([0, 0, 0, 0, 0, 0, 0, 0, 4, 7, 8, 7, 5, 7, 8, 7, 5, 3, 0, 0, 0, 0, 0, 0])


@dataclass(frozen=True)
class DemoData:
    """The demo database as one pandas DataFrame per table."""

    stores: pd.DataFrame
    customers: pd.DataFrame
    categories: pd.DataFrame
    products: pd.DataFrame
    orders: pd.DataFrame
    order_items: pd.DataFrame

    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table by name, in foreign-key-safe order."""
        return {name: getattr(self, name) for name in TABLES}

    def row_counts(self) -> dict[str, int]:
        """The number of rows of every table."""
        return {name: len(frame) for name, frame in self.tables().items()}

    def fingerprint(self) -> str:
        """A SHA-256 over every value of every table: equal data gives an equal fingerprint."""
        digest = hashlib.sha256()
        for name, frame in self.tables().items():
            digest.update(name.encode())
            digest.update(",".join(frame.columns).encode())
            digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
        return digest.hexdigest()


def generate(seed: int = 7) -> DemoData:
    """Generate the whole demo database; the same seed always gives the same data."""
    rng = np.random.default_rng(seed)
    stores = _stores()
    categories, products, discontinued_on = _catalogue(rng)
    customers, home_store, activity = _customers(rng, stores)
    orders, order_segment = _orders(rng, stores, customers, home_store, activity)
    order_items = _order_items(rng, stores, products, discontinued_on, orders, order_segment)
    return DemoData(stores, customers, categories, products, orders, order_items)


def _ids(n: int) -> np.ndarray:
    return np.arange(1, n + 1, dtype=np.int64)


def _days(start: str, end: str) -> np.ndarray:
    return np.arange(np.datetime64(start), np.datetime64(end) + 1)


def _stores() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": _ids(len(STORES)),
            "name": [s.name for s in STORES],
            "city": [s.city for s in STORES],
            "state": [s.state for s in STORES],
            "region": [s.region for s in STORES],
            "opened_on": pd.to_datetime([s.opened_on for s in STORES]).as_unit("s"),
            "square_feet": np.array([s.square_feet for s in STORES], dtype=np.int64),
        }
    )


def _catalogue(rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """Categories and products; products get a hidden discontinuation date (NaT if active)."""
    categories = pd.DataFrame(
        {
            "id": _ids(len(CATEGORIES)),
            "name": [c.name for c in CATEGORIES],
            "department": [c.department for c in CATEGORIES],
        }
    )
    rows: list[tuple[str, str, int, float, float]] = []
    for category_id, category in enumerate(CATEGORIES, start=1):
        combos = [(brand, tier) for brand in category.brands for tier in range(len(TIERS))]
        for item, base_price in category.items:
            count = 2 + int(rng.random() < 0.4)
            for pick in rng.choice(len(combos), size=count, replace=False):
                brand, tier = combos[int(pick)]
                prefix, factor = TIERS[tier]
                name = " ".join(part for part in (brand, prefix, item) if part)
                price = float(
                    _price_points(np.array(base_price * factor * rng.lognormal(0.0, 0.08)))
                )
                margin = rng.uniform(*category.margin)
                if rng.random() < 0.03:  # clearance lines sold below cost
                    margin = -rng.uniform(0.04, 0.15)
                sku = f"{category.code}-{category_id * 1000 + len(rows) + 1:05d}"
                rows.append((sku, name, category_id, price * (1 - margin), price))
    n = len(rows)
    is_active = rng.random(n) >= 0.08
    # Discontinued products stop selling somewhere between March 2024 and September 2025.
    stop = FIRST_DAY + 60 + rng.integers(0, 580, size=n)
    discontinued_on = np.where(is_active, np.datetime64("NaT"), stop).astype("datetime64[D]")
    products = pd.DataFrame(
        {
            "id": _ids(n),
            "sku": [r[0] for r in rows],
            "name": [r[1] for r in rows],
            "category_id": np.array([r[2] for r in rows], dtype=np.int64),
            "unit_cost": np.round([r[3] for r in rows], 2),
            "unit_price": np.round([r[4] for r in rows], 2),
            "is_active": is_active,
        }
    )
    return categories, products, discontinued_on


def _price_points(raw: np.ndarray) -> np.ndarray:
    """Retail price points: whole dollars less a cent from $20 up, half dollars below."""
    return np.where(raw >= 20, np.maximum(np.round(raw), 20), np.floor(raw * 2 + 1) / 2) - 0.01


def _customers(
    rng: np.random.Generator, stores: pd.DataFrame
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Customers, the index of each one's home store and how often each one orders."""
    n = N_CUSTOMERS
    traffic = np.array([s.traffic for s in STORES])
    home = rng.choice(len(STORES), size=n, p=traffic / traffic.sum())
    in_suburb = rng.random(n) < 0.25
    city = np.array(stores["city"], dtype=object)[home]
    for index, store in enumerate(STORES):
        mask = in_suburb & (home == index)
        city[mask] = rng.choice(store.suburbs, size=int(mask.sum()))
    shares = np.array([share for _, share, _ in SEGMENTS])
    segment_index = rng.choice(len(SEGMENTS), size=n, p=shares)
    first = rng.choice(FIRST_NAMES, size=n)
    last = rng.choice(LAST_NAMES, size=n)
    ids = _ids(n)
    domains = rng.choice(EMAIL_DOMAINS, size=n)
    email = [
        f"{f.lower()}.{la.lower()}{i}@{d}"
        for f, la, i, d in zip(first, last, ids, domains, strict=True)
    ]
    # Two thirds registered before the period; the rest trickle in until late 2025.
    early = _days("2019-01-01", "2023-12-31")
    late = _days("2024-01-01", "2025-11-30")
    signup = np.where(
        rng.random(n) < 0.66,
        early[rng.integers(0, len(early), size=n)],
        late[rng.integers(0, len(late), size=n)],
    )
    # Ids follow registration order; the other columns are independent draws, so sorting
    # this one column is the same as sorting the rows.
    signup = np.sort(signup)
    activity = (
        rng.lognormal(0.0, 0.9, size=n) * np.array([m for _, _, m in SEGMENTS])[segment_index]
    )
    customers = pd.DataFrame(
        {
            "id": ids,
            "first_name": first,
            "last_name": last,
            "email": email,
            "city": city.astype(str),
            "state": np.array(stores["state"])[home],
            "segment": np.array([s for s, _, _ in SEGMENTS])[segment_index],
            "signup_date": signup.astype("datetime64[s]"),
        }
    )
    return customers, home, activity


def _day_weights(days: np.ndarray) -> np.ndarray:
    months = days.astype("datetime64[M]").astype(np.int64) % 12
    weekdays = (days.astype(np.int64) + 3) % 7  # 1970-01-01 was a Thursday
    years_in = (days - FIRST_DAY).astype(np.int64) / 365.0
    weights = _MONTH_FACTOR[months] * _WEEKDAY_FACTOR[weekdays] * (1 + 0.07 * years_in)
    for day, factor in _SPECIAL_DAYS.items():
        weights[days == np.datetime64(day)] *= factor
    # The run-up to Christmas.
    for year in ("2024", "2025"):
        run_up = (days >= np.datetime64(f"{year}-12-14")) & (days <= np.datetime64(f"{year}-12-23"))
        weights[run_up] *= 1.4
    return weights


def _pick_customers(
    rng: np.random.Generator,
    pool: np.ndarray,
    signup: np.ndarray,
    activity: np.ndarray,
    days: np.ndarray,
) -> np.ndarray:
    """For each order day, an activity-weighted customer of `pool` already signed up by then."""
    order = np.argsort(signup[pool], kind="stable")
    pool = pool[order]
    eligible = np.searchsorted(signup[pool], days, side="right")
    cumulative = np.cumsum(activity[pool])
    target = rng.random(len(days)) * cumulative[np.maximum(eligible, 1) - 1]
    picked = np.minimum(np.searchsorted(cumulative, target, side="right"), eligible - 1)
    return np.asarray(pool[np.maximum(picked, 0)])


def _orders(
    rng: np.random.Generator,
    stores: pd.DataFrame,
    customers: pd.DataFrame,
    home_store: np.ndarray,
    activity: np.ndarray,
) -> tuple[pd.DataFrame, np.ndarray]:
    """Orders sorted by time, and the segment of each order's customer."""
    n = N_ORDERS
    all_days = _days(str(FIRST_DAY), str(LAST_DAY))
    weights = _day_weights(all_days)
    days = np.sort(all_days[rng.choice(len(all_days), size=n, p=weights / weights.sum())])
    years_in = (days - FIRST_DAY).astype(np.int64) / 365.0

    traffic = np.array([s.traffic for s in STORES])
    trend = np.array([s.trend for s in STORES])
    store_weights = traffic[None, :] * (1 + trend[None, :] * years_in[:, None])
    cumulative = np.cumsum(store_weights / store_weights.sum(axis=1, keepdims=True), axis=1)
    store = np.minimum((rng.random(n)[:, None] > cumulative).sum(axis=1), len(STORES) - 1)

    # Most orders come from the store's own customers, some from visitors of other cities.
    signup = customers["signup_date"].to_numpy().astype("datetime64[D]")
    customer = np.empty(n, dtype=np.int64)
    local = rng.random(n) < 0.9
    for index in range(len(STORES)):
        mask = local & (store == index)
        pool = np.flatnonzero(home_store == index)
        customer[mask] = _pick_customers(rng, pool, signup, activity, days[mask])
    everyone = np.arange(len(customers))
    customer[~local] = _pick_customers(rng, everyone, signup, activity, days[~local])

    segment = customers["segment"].to_numpy()[customer]
    online_share = 0.24 + 0.05 * years_in
    phone_share = np.select(
        [segment == "small_business", segment == "corporate"], [0.15, 0.22], default=0.05
    )
    draw = rng.random(n)
    channel = np.where(
        draw < online_share,
        "online",
        np.where(draw < online_share + phone_share, "phone", "in_store"),
    )
    hour = np.empty(n, dtype=np.int64)
    for name, profile in (
        ("in_store", _IN_STORE_HOURS),
        ("online", _ONLINE_HOURS),
        ("phone", _PHONE_HOURS),
    ):
        mask = channel == name
        hour[mask] = rng.choice(24, size=int(mask.sum()), p=profile / profile.sum())
    seconds = hour * 3600 + rng.integers(0, 3600, size=n)
    order_date = days.astype("datetime64[s]") + seconds.astype("timedelta64[s]")

    is_houston = np.array(stores["city"])[store] == HOUSTON
    houston_returns = np.where(is_houston, HOUSTON_RETURN_FACTOR, 1.0)
    returned_p = 0.045 * np.where(channel == "online", 1.6, 1.0) * houston_returns
    cancelled_p = 0.025 * np.where(channel == "online", 1.5, 1.0)
    draw = rng.random(n)
    status = np.where(
        draw < returned_p,
        "returned",
        np.where(draw < returned_p + cancelled_p, "cancelled", "completed"),
    )
    by_time = np.argsort(order_date, kind="stable")  # ids increase with time, even within a day
    orders = pd.DataFrame(
        {
            "id": _ids(n),
            "customer_id": customers["id"].to_numpy()[customer[by_time]],
            "store_id": stores["id"].to_numpy()[store[by_time]],
            "order_date": order_date[by_time],
            "status": status[by_time],
            "channel": channel[by_time],
        }
    )
    return orders, segment[by_time]


def _order_items(
    rng: np.random.Generator,
    stores: pd.DataFrame,
    products: pd.DataFrame,
    discontinued_on: np.ndarray,
    orders: pd.DataFrame,
    segment: np.ndarray,
) -> pd.DataFrame:
    """Order lines: how many per order, which products, how many units, at what price."""
    houston_id = int(stores.loc[stores["city"] == HOUSTON, "id"].iloc[0])
    is_houston = orders["store_id"].to_numpy() == houston_id
    order_day = orders["order_date"].to_numpy().astype("datetime64[D]")
    month = order_day.astype("datetime64[M]").astype(np.int64) % 12
    holiday = month >= 10

    business = np.select([segment == "small_business", segment == "corporate"], [0.9, 1.4], 0.0)
    houston_lines = np.where(is_houston, HOUSTON_LINES_FACTOR, 1.0)
    lines_lambda = (1.65 + business + 0.25 * holiday) * houston_lines
    lines = 1 + np.minimum(rng.poisson(lines_lambda), 11)
    order_index = np.repeat(np.arange(len(orders)), lines)
    m = len(order_index)
    line_houston = is_houston[order_index]
    line_day = order_day[order_index]

    price = products["unit_price"].to_numpy()
    category = products["category_id"].to_numpy() - 1
    # Each category keeps its share of lines; inside it, a random best-seller ranking
    # (Zipf-like) and a mild preference for cheaper products decide who sells most.
    rank = np.empty(len(products))
    for index in range(len(CATEGORIES)):
        members = np.flatnonzero(category == index)
        rank[members] = rng.permutation(len(members)) + 1.0
    appeal = rank**-0.7 * price**-0.15
    category_appeal = np.bincount(category, weights=appeal)[category]
    base = np.array([c.popularity for c in CATEGORIES])[category] * appeal / category_appeal
    tilted = base * price**-HOUSTON_PRICE_TILT
    weights = {False: base / base.sum(), True: tilted / tilted.sum()}

    product = np.empty(m, dtype=np.int64)
    redo = np.ones(m, dtype=bool)
    for _ in range(8):  # redraw duplicate lines and discontinued products, a few times over
        for houston in (False, True):
            mask = redo & (line_houston == houston)
            product[mask] = rng.choice(len(products), size=int(mask.sum()), p=weights[houston])
        stopped = discontinued_on[product]
        late = ~np.isnat(stopped) & (line_day >= stopped)
        duplicate = pd.DataFrame({"o": order_index, "p": product}).duplicated().to_numpy()
        redo = late | duplicate
        if not redo.any():
            break
    keep = ~redo
    order_index, product, line_day = order_index[keep], product[keep], line_day[keep]
    line_houston, m = line_houston[keep], int(keep.sum())

    line_price = price[product]
    size = np.select([line_price >= 300, line_price < 20], [0.25, 2.0], 1.0)
    seg_lambda = np.select(
        [segment[order_index] == "small_business", segment[order_index] == "corporate"],
        [1.0, 1.8],
        0.22,
    )
    quantity = 1 + np.minimum(rng.poisson(seg_lambda * size), 24)
    price_2024 = np.round(_price_points(price * PRICE_2024_FACTOR), 2)[product]
    sale_price = np.where(line_day < PRICE_RISE_ON, price_2024, line_price)

    line_month = line_day.astype("datetime64[M]").astype(np.int64) % 12
    houston_discounts = np.where(line_houston, HOUSTON_EXTRA_DISCOUNT, 0.0)
    discount_p = np.where(line_month >= 10, 0.35, 0.18) + houston_discounts
    discounted = rng.random(m) < discount_p
    depth = rng.choice(_DISCOUNTS, size=m, p=_DISCOUNT_WEIGHTS / _DISCOUNT_WEIGHTS.sum())
    discount = np.where(discounted, depth, 0.0)

    return pd.DataFrame(
        {
            "id": _ids(m),
            "order_id": orders["id"].to_numpy()[order_index],
            "product_id": products["id"].to_numpy()[product],
            "quantity": quantity.astype(np.int64),
            "unit_price": sale_price,
            "discount": discount,
        }
    )

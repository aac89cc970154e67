"""The fixed reference data behind the demo retailer: stores, names, categories, products.

Everything random is drawn in `generator.py` from a seeded generator; this module only
holds the lists it draws from, so the shape of the business can be read in one place.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StoreProfile:
    """One store and the levers that shape its sales."""

    name: str
    city: str
    state: str
    region: str
    opened_on: str
    square_feet: int
    traffic: float  # relative share of orders at the start of 2024
    trend: float  # change in that share per year (Houston declines)
    suburbs: tuple[str, ...]  # where its customers live, besides the city itself


HOUSTON = "Houston"

# fmt: off
STORES: tuple[StoreProfile, ...] = tuple(
    StoreProfile(name, city, state, region, opened, sqft, traffic, trend, tuple(suburbs.split("|")))
    for name, city, state, region, opened, sqft, traffic, trend, suburbs in (
        ("Houston Galleria", HOUSTON, "TX", "South", "2011-09-17", 58_000, 1.20, -0.20,
         "Sugar Land|Katy|The Woodlands|Pasadena"),
        ("Dallas Uptown", "Dallas", "TX", "South", "2012-04-21", 44_000, 1.00, 0.05,
         "Plano|Irving|Garland"),
        ("Austin Domain", "Austin", "TX", "South", "2016-10-08", 38_000, 0.85, 0.12,
         "Round Rock|Cedar Park|Pflugerville"),
        ("Phoenix Biltmore", "Phoenix", "AZ", "West", "2014-03-15", 41_000, 0.90, 0.06,
         "Scottsdale|Tempe|Mesa"),
        ("Denver Cherry Creek", "Denver", "CO", "West", "2015-06-06", 36_000, 0.80, 0.07,
         "Aurora|Lakewood|Littleton"),
        ("Chicago Lincoln Park", "Chicago", "IL", "Midwest", "2010-11-20", 47_000, 1.10, 0.03,
         "Evanston|Oak Park|Naperville"),
        ("Atlanta Midtown", "Atlanta", "GA", "Southeast", "2013-08-24", 42_000, 0.95, 0.06,
         "Decatur|Marietta|Sandy Springs"),
        ("Seattle Capitol Hill", "Seattle", "WA", "West", "2014-05-10", 35_000, 0.90, 0.05,
         "Bellevue|Redmond|Kirkland"),
        ("Nashville Gulch", "Nashville", "TN", "Southeast", "2019-04-13", 33_000, 0.70, 0.15,
         "Franklin|Brentwood|Murfreesboro"),
        ("Minneapolis North Loop", "Minneapolis", "MN", "Midwest", "2017-09-09", 34_000, 0.75,
         0.04, "St. Paul|Bloomington|Edina"),
    )
)

FIRST_NAMES: tuple[str, ...] = (
    "James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David",
    "Elizabeth", "William", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah",
    "Carlos", "Karen", "Daniel", "Lisa", "Matthew", "Nancy", "Anthony", "Sandra", "Mark", "Ashley",
    "Jose", "Emily", "Luis", "Maria", "Kevin", "Michelle", "Brian", "Amanda", "Wei", "Mei",
    "Arjun", "Priya", "Andre", "Keisha", "Diego", "Sofia", "Ethan", "Olivia", "Noah", "Emma",
    "Liam", "Ava", "Mateo", "Isabella", "Hiroshi", "Yuki", "Omar", "Fatima", "Ivan", "Elena",
    "Tyrone", "Grace",
)

LAST_NAMES: tuple[str, ...] = (
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez",
    "Martinez", "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor",
    "Moore", "Jackson", "Martin", "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez",
    "Clark", "Ramirez", "Lewis", "Robinson", "Walker", "Young", "Allen", "King", "Wright", "Scott",
    "Torres", "Nguyen", "Hill", "Flores", "Green", "Adams", "Nelson", "Baker", "Hall", "Rivera",
    "Campbell", "Mitchell", "Carter", "Roberts", "Patel", "Kim", "Chen", "Wang", "Singh", "Okafor",
    "Kowalski", "Novak", "Schmidt", "Murphy",
)
# fmt: on

EMAIL_DOMAINS: tuple[str, ...] = ("example.com", "example.net", "example.org")

# (segment, share of customers, order-activity multiplier)
SEGMENTS: tuple[tuple[str, float, float], ...] = (
    ("consumer", 0.76, 1.0),
    ("small_business", 0.17, 1.6),
    ("corporate", 0.07, 2.0),
)


@dataclass(frozen=True)
class CategoryProfile:
    """A product category: where it sits, how it sells and what it earns."""

    name: str
    department: str
    code: str  # SKU prefix
    popularity: float  # share of order lines
    margin: tuple[float, float]  # gross margin range of its products
    brands: tuple[str, ...]
    items: tuple[tuple[str, float], ...]  # (product type, typical list price)


_ELECTRONICS_BRANDS = ("Voltra", "Nimbus", "Arcwave", "Corelink")
_HOME_BRANDS = ("Hearth & Oak", "Casa Verde", "Ember", "Linden")
_APPAREL_BRANDS = ("Northline", "Marlow", "Tidewater", "Kestrel")
_OUTDOOR_BRANDS = ("Summit Ridge", "Trailhead", "IronPeak")
_GROCERY_BRANDS = ("Green Valley", "Harvest Moon", "Old Mill")

# fmt: off
CATEGORIES: tuple[CategoryProfile, ...] = (
    CategoryProfile("Computers & Tablets", "Electronics", "CMP", 0.035, (0.10, 0.20),
        _ELECTRONICS_BRANDS, (
            ('Laptop 14"', 899.0), ('Laptop 16"', 1299.0), ("Chromebook", 329.0),
            ('Tablet 10"', 379.0), ('Tablet 12"', 649.0), ("Desktop Tower", 999.0),
            ('Monitor 27"', 299.0), ("USB-C Dock", 149.0), ("Mechanical Keyboard", 89.0),
        )),
    CategoryProfile("Audio", "Electronics", "AUD", 0.07, (0.28, 0.42), _ELECTRONICS_BRANDS, (
        ("Wireless Earbuds", 129.0), ("Noise-Cancelling Headphones", 279.0),
        ("Bluetooth Speaker", 79.0), ("Soundbar", 249.0), ("Studio Monitor Speakers", 199.0),
        ("Portable Radio", 39.0), ("Turntable", 179.0), ("Wired Headphones", 35.0),
    )),
    CategoryProfile("Phone Accessories", "Electronics", "PHA", 0.10, (0.50, 0.68),
        _ELECTRONICS_BRANDS, (
            ("Phone Case", 24.99), ("Screen Protector", 14.99), ("Wireless Charger", 39.99),
            ("USB-C Cable 2m", 12.99), ("Power Bank 10000mAh", 34.99), ("Car Mount", 19.99),
            ("Wall Charger 30W", 24.99), ("Smartwatch Band", 17.99),
        )),
    CategoryProfile("Kitchen", "Home", "KIT", 0.08, (0.30, 0.45), _HOME_BRANDS, (
        ("Chef's Knife", 59.0), ('Nonstick Skillet 12"', 44.0), ("Dutch Oven", 129.0),
        ("Stand Mixer", 349.0), ("Blender", 89.0), ("Espresso Machine", 449.0),
        ("Cutting Board", 29.0), ("Toaster Oven", 119.0), ("Knife Block Set", 189.0),
    )),
    CategoryProfile("Furniture", "Home", "FUR", 0.03, (0.30, 0.42), _HOME_BRANDS, (
        ("Sofa", 1199.0), ("Accent Chair", 349.0), ("Coffee Table", 279.0),
        ("Bookshelf", 189.0), ("Dining Table", 899.0), ("Office Chair", 299.0),
        ("Nightstand", 149.0), ("Standing Desk", 549.0),
    )),
    CategoryProfile("Home Decor", "Home", "DEC", 0.09, (0.45, 0.62), _HOME_BRANDS, (
        ("Throw Pillow", 24.0), ("Scented Candle", 18.0), ("Table Lamp", 69.0),
        ("Wall Mirror", 119.0), ("Area Rug 5x7", 179.0), ("Picture Frame Set", 34.0),
        ("Ceramic Vase", 29.0), ("Throw Blanket", 49.0),
    )),
    CategoryProfile("Men's Apparel", "Apparel", "MEN", 0.11, (0.45, 0.60), _APPAREL_BRANDS, (
        ("Oxford Shirt", 49.0), ("Crew Neck T-Shirt", 19.0), ("Chino Pants", 54.0),
        ("Denim Jeans", 64.0), ("Fleece Hoodie", 59.0), ("Rain Jacket", 119.0),
        ("Wool Sweater", 89.0), ("Polo Shirt", 39.0),
    )),
    CategoryProfile("Women's Apparel", "Apparel", "WOM", 0.13, (0.48, 0.64), _APPAREL_BRANDS, (
        ("Wrap Dress", 79.0), ("Linen Blouse", 49.0), ("Skinny Jeans", 64.0),
        ("Cardigan", 59.0), ("Yoga Leggings", 44.0), ("Puffer Jacket", 149.0),
        ("Midi Skirt", 54.0), ("Silk Scarf", 39.0),
    )),
    CategoryProfile("Footwear", "Apparel", "FTW", 0.08, (0.38, 0.50), _APPAREL_BRANDS, (
        ("Running Shoes", 119.0), ("Trail Runners", 134.0), ("Leather Boots", 179.0),
        ("Canvas Sneakers", 59.0), ("Sandals", 39.0), ("Loafers", 99.0),
        ("Rain Boots", 69.0), ("Slippers", 29.0),
    )),
    CategoryProfile("Fitness", "Outdoors", "FIT", 0.05, (0.25, 0.40), _OUTDOOR_BRANDS, (
        ("Adjustable Dumbbells", 299.0), ("Yoga Mat", 29.0), ("Resistance Bands", 19.0),
        ("Kettlebell 16kg", 59.0), ("Foam Roller", 24.0), ("Exercise Bike", 699.0),
        ("Jump Rope", 14.0), ("Treadmill", 1099.0),
    )),
    CategoryProfile("Camping & Hiking", "Outdoors", "CMPG", 0.06, (0.32, 0.46), _OUTDOOR_BRANDS, (
        ("2-Person Tent", 179.0), ("Sleeping Bag", 99.0), ("Daypack 24L", 69.0),
        ("Headlamp", 29.0), ("Trekking Poles", 59.0), ("Camp Stove", 79.0),
        ("Water Filter", 39.0), ("Insulated Bottle", 32.0),
    )),
    CategoryProfile("Snacks & Beverages", "Grocery", "GRO", 0.15, (0.18, 0.32), _GROCERY_BRANDS, (
        ("Trail Mix", 6.49), ("Cold Brew Coffee 4-Pack", 11.99),
        ("Sparkling Water 12-Pack", 7.99), ("Dark Chocolate Bar", 3.49), ("Kettle Chips", 4.29),
        ("Green Tea 20ct", 5.99), ("Protein Bars 6-Pack", 12.49), ("Whole Bean Coffee 1lb", 14.99),
    )),
)
# fmt: on

# Quality tiers: the name prefix and how much it moves the list price.
TIERS: tuple[tuple[str, float], ...] = (("Essential", 0.75), ("", 1.0), ("Pro", 1.35))

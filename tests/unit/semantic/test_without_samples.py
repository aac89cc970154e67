"""What a grantee under a database role sees of a model: nothing read from the data."""

from __future__ import annotations

from dataagent.semantic.model import SemanticModel, without_samples


def test_without_samples_drops_values_and_counts_and_keeps_the_rest() -> None:
    model = SemanticModel.model_validate(
        {
            "name": "shop",
            "dialect": "postgresql",
            "datasets": [
                {
                    "name": "orders",
                    "source": "public.orders",
                    "row_count": 1200,
                    "fields": [
                        {
                            "name": "region",
                            "expression": "region",
                            "data_type": "varchar",
                            "description": "Sales region",
                            "sample_values": ["west", "east"],
                            "distinct_count": 2,
                        }
                    ],
                }
            ],
        }
    )
    shown = without_samples(model)
    field = shown.datasets[0].fields[0]
    assert field.sample_values == [] and field.distinct_count is None
    assert shown.datasets[0].row_count is None
    assert field.description == "Sales region" and shown.datasets[0].source == "public.orders"
    # The original is untouched (it is cached and shared with the owner's requests).
    assert model.datasets[0].fields[0].sample_values == ["west", "east"]
    assert model.datasets[0].row_count == 1200

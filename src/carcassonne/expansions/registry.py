"""The expansions and rule variants on offer, one row each: everything the edges need to know
about them.

Every list of expansions elsewhere derives from :data:`EXPANSIONS` and :data:`VARIANTS`: the
game options that switch them on (``options.SWITCHES``), the objects a game plays with
(:func:`build_expansions`), the command-line flags (``cli/options.py``), the web's create request
(``web/protocol.py``), the record keys (``formats/record.py``), the replay's set-up line, the JSON
action names (``formats/actions.py``), the tile sets drawn by the browser (``web/tilegeom.py``)
and observed by the environment (``env/observations.py``), and the lobby's checkboxes (served by
``/api/meta``).  Adding an expansion is its module, its tile file, its tests and one row here,
with the two things the row names: its ``GameOptions`` field and its lobby labels (docs/engine.md,
"Writing an expansion"); ``tests/test_registry.py`` fails when another file names one.

Rows list the expansions in the order people read them (the lobby, the help, the replay's
set-up line); the order their hooks run is :attr:`ExpansionSpec.hook_position`, which is rules
significant (docs/rules.md D29, D42, D43).  The classes are named, not imported: ``options.py``
reads this module, and the expansions' modules import the engine (``build_expansions`` imports
them when a game is built).

Its spellings are what users and stored data see (flags, record and web option keys, view
keys, action names), so a row keeps each one exactly as it was first published, however
unlike its neighbours (``inns-cathedrals`` and ``traders_builders``, tile set ``ic``).  It stays
interpreted in the compiled build (``setup.py``): plain data, read once per game, never per move.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from .actions import PlaceBet, RecallAbbot, SellWine, SettleAgainst

if TYPE_CHECKING:
    from ..options import GameOptions

#: how an expansion goes with a map: either way, only on one, or never on one
MapUse = Literal["any", "needs", "never"]


@dataclass(frozen=True)
class ExpansionSpec:
    """One expansion: how it is asked for, named, built, drawn and observed."""

    #: the :class:`GameOptions` attribute that switches it on, also its key in records, in the
    #: web's create request and in the lobby
    field: str
    #: its public name: ``Expansion.name`` of its class, the key of its state in game views
    name: str
    #: its module under ``carcassonne.expansions`` and the class there
    module: str
    class_name: str
    #: its name in sentences (the replay's set-up line, error messages)
    title: str
    #: the command-line flag's help
    help: str
    #: the position of its hooks among the others' (0 runs first): docs/rules.md D29, D42, D43
    hook_position: int
    #: the tile files it brings (``data/tiles/<name>.json``)
    tile_sets: tuple[str, ...] = ()
    #: its actions: JSON name (``{"type": ...}``) -> action type
    actions: tuple[tuple[str, type], ...] = ()
    #: whether it is played only on a map, never on one, or either way
    map_use: MapUse = "any"
    #: the error when ``map_use`` is not met
    map_error: str = ""
    #: whether its class takes the game options (its variants are settled when it is built)
    takes_options: bool = False
    #: records name it even when off (it was in the first record format); the others are written
    #: only when on, so that older records read and write as before
    in_every_record: bool = False
    #: its tiles and figures come in the environment's extended observation and action space,
    #: not the first layout (models trained on that keep their shapes)
    extended_observation: bool = False
    #: the learned evaluation's family of weights that values its games (``bots/learned.py``);
    #: empty: the base game's, unless a map or another expansion names one
    evaluation_family: str = ""

    @property
    def flag(self) -> str:
        """The command-line flag: the option field with dashes."""
        return "--" + self.field.replace("_", "-")

    @property
    def label(self) -> str:
        """The i18n key of its lobby checkbox (``<label>.hint`` is the line under it)."""
        return f"option.{self.field}"


@dataclass(frozen=True)
class VariantSpec:
    """One rule variant: an on/off option that changes a rule of the base game or an expansion."""

    #: the :class:`GameOptions` attribute, also its key in records and the web's create request
    field: str
    #: the option's value when not asked for: False adds a rule, True plays one unless turned off
    default: bool
    #: the command-line flag, which asks for the value that is not the default
    flag: str
    #: the flag's help; ``{needs}`` stands for the flag of the expansion it needs
    help: str
    #: the i18n key of its lobby checkbox
    label: str
    #: the words for it when asked for (the replay's set-up line)
    title: str
    #: the expansion (its option field) it changes, if it is one's variant
    needs: str | None = None
    #: variants (fields) of which one at least must be left on for this one to change anything
    needs_any_of: tuple[str, ...] = ()

    @property
    def checkbox(self) -> str:
        """The lobby's checkbox for it, ticked when it is asked for: ``no_farmers`` for a rule
        played unless turned off."""
        return f"no_{self.field}" if self.default else self.field

    def asked(self, options: GameOptions) -> bool:
        """Whether ``options`` ask for it (hold the value that is not the default)."""
        return bool(getattr(options, self.field)) != self.default


EXPANSIONS: tuple[ExpansionSpec, ...] = (
    ExpansionSpec(
        field="river",
        name="river",
        module="river",
        class_name="River",
        title="river",
        help="play with the River (C3 box)",
        hook_position=0,
        tile_sets=("river",),
        map_use="never",
        map_error="the River cannot be played on a map (docs/rules.md D13)",
        in_every_record=True,
    ),
    ExpansionSpec(
        field="abbot",
        name="abbot",
        module="abbot",
        class_name="Abbot",
        title="abbot",
        help="play with the Abbot (C3 box)",
        hook_position=1,
        actions=(("recall-abbot", RecallAbbot),),
        in_every_record=True,
    ),
    ExpansionSpec(
        field="bets",
        name="bets",
        module="bets",
        class_name="Bets",
        title="bets",
        help="play with The Bets",
        # after Map-Chips: the bets are settled (after_scoring) before wine is sold, and wine
        # is sold (end_of_turn) before bets are placed (D29)
        hook_position=4,
        tile_sets=("bets",),
        actions=(("place-bet", PlaceBet), ("settle-bet", SettleAgainst)),
        in_every_record=True,
    ),
    ExpansionSpec(
        field="inns_cathedrals",
        name="inns-cathedrals",
        module="inns",
        class_name="InnsCathedrals",
        title="inns & cathedrals",
        help="play with Inns & Cathedrals (inns, cathedrals, the large meeple)",
        hook_position=2,
        tile_sets=("ic",),
        takes_options=True,
        extended_observation=True,
        evaluation_family="inns-traders",
    ),
    ExpansionSpec(
        field="traders_builders",
        name="traders_builders",
        module="traders",
        class_name="TradersBuilders",
        title="traders & builders",
        help="play with Traders & Builders (trade goods, builder, pig)",
        # last: its end_of_turn grants the builder's second tile once the other expansions'
        # step 3 and step 4 of this tile are queued (D42, D43)
        hook_position=5,
        tile_sets=("traders_builders",),
        extended_observation=True,
        evaluation_family="inns-traders",
    ),
    ExpansionSpec(
        field="map_chips",
        name="map-chips",
        module="mapchips",
        class_name="MapChips",
        title="map chips",
        help="play with the map's Map-Chips (needs --map)",
        hook_position=3,
        actions=(("sell-wine", SellWine),),
        map_use="needs",
        map_error="map chips need a map (--map)",
        in_every_record=True,
    ),
)

VARIANTS: tuple[VariantSpec, ...] = (
    VariantSpec(
        field="small_city_scores_2",
        default=False,
        flag="--small-city-2",
        help="rule variant: a completed city of two tiles scores 2, not 4",
        label="option.small_city_scores_2",
        title="small cities score 2",
    ),
    VariantSpec(
        field="farmers",
        default=True,
        flag="--no-farmers",
        help="rule variant: no figures on fields, fields never score",
        label="option.no_farmers",
        title="no farmers",
    ),
    VariantSpec(
        field="plain_unfinished_inns_cathedrals",
        default=False,
        flag="--plain-unfinished-inns-cathedrals",
        help="rule variant (needs {needs}): an unfinished road with an inn or city with a "
        "cathedral scores as a plain one at the end, not 0",
        label="lobby.variant_plain_unfinished_inns_cathedrals",
        title="unfinished inns and cathedrals score as plain ones",
        needs="inns_cathedrals",
        needs_any_of=("inns", "cathedrals"),
    ),
    VariantSpec(
        field="inns",
        default=True,
        flag="--no-inns",
        help="rule variant (needs {needs}): the inns' roads are plain roads",
        label="lobby.variant_no_inns",
        title="no inns",
        needs="inns_cathedrals",
    ),
    VariantSpec(
        field="cathedrals",
        default=True,
        flag="--no-cathedrals",
        help="rule variant (needs {needs}): the cathedrals' cities are plain cities",
        label="lobby.variant_no_cathedrals",
        title="no cathedrals",
        needs="inns_cathedrals",
    ),
)

#: the expansions by option field
BY_FIELD: dict[str, ExpansionSpec] = {spec.field: spec for spec in EXPANSIONS}
#: the variants by option field
VARIANT_BY_FIELD: dict[str, VariantSpec] = {spec.field: spec for spec in VARIANTS}
#: the expansions in the order their hooks run
IN_HOOK_ORDER: tuple[ExpansionSpec, ...] = tuple(
    sorted(EXPANSIONS, key=lambda spec: spec.hook_position)
)


def variant_help(variant: VariantSpec) -> str:
    """The variant's flag help, naming the flag of the expansion it needs."""
    return variant.help.format(needs=BY_FIELD[variant.needs].flag if variant.needs else "")


def tile_sets(extended: bool = True) -> tuple[str, ...]:
    """The tile files games draw from: the base set's, then the expansions' of the
    environment's first layout, then (``extended``) the others' (the drawn-tile one-hot's order)."""
    layouts = (False, True) if extended else (False,)
    return (
        "base",
        *(
            name
            for layout in layouts
            for spec in EXPANSIONS
            if spec.extended_observation == layout
            for name in spec.tile_sets
        ),
    )


def extended_observation(options: GameOptions) -> bool:
    """Whether ``options`` switch on an expansion only the environment's extended layout covers."""
    return any(getattr(options, spec.field) for spec in EXPANSIONS if spec.extended_observation)


def evaluation_family(options: GameOptions) -> str:
    """The family of learned weights that values a game with ``options``: ``map`` on a map (the
    bounded board changes what fields and open features are worth more than any expansion), else
    the family of the first expansion on that names one, else ``base``."""
    if options.map is not None:
        return "map"
    for spec in EXPANSIONS:
        if spec.evaluation_family and getattr(options, spec.field):
            return spec.evaluation_family
    return "base"


def action_types() -> dict[str, type]:
    """JSON name -> action type, for every expansion's actions."""
    return {name: cls for spec in EXPANSIONS for name, cls in spec.actions}


def meta() -> dict[str, list[dict[str, object]]]:
    """The expansions and variants as ``/api/meta`` serves them to the lobby."""
    return {
        "expansions": [
            {
                "name": spec.name,
                "option": spec.field,
                "label": spec.label,
                "tile_sets": list(spec.tile_sets),
                "needs_map": spec.map_use == "needs",
                "never_on_map": spec.map_use == "never",
            }
            for spec in EXPANSIONS
        ],
        "variants": [
            {
                "option": spec.field,
                "default": spec.default,
                "checkbox": spec.checkbox,
                "label": spec.label,
                "needs": spec.needs,
                "needs_any_of": list(spec.needs_any_of),
            }
            for spec in VARIANTS
        ],
    }

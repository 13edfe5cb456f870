"""Which client addresses count as one client for the per-client limits.

Every cap and rate limit of the server is per client (games held, games created a minute,
requests, open connections), and a client is known only by its address. An IPv4 address is
scarce, but one IPv6 subscriber is handed a whole /64 (2^64 addresses), so keying the limits by
exact address would let one machine be a crowd. Addresses are grouped instead: IPv4 by its /32
(the address itself), IPv6 by its /64 prefix, both configurable (``carcassonne serve
--ipv4-prefix``, ``--ipv6-prefix``). An IPv4 address written as IPv6 (``::ffff:1.2.3.4``)
counts as the IPv4 address it is.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass


@dataclass(frozen=True)
class AddressGroups:
    """How many leading bits of an address name its client."""

    ipv4_prefix: int = 32
    ipv6_prefix: int = 64

    def __post_init__(self) -> None:
        if not 8 <= self.ipv4_prefix <= 32 or not 16 <= self.ipv6_prefix <= 128:
            raise ValueError(f"prefixes must be IPv4 /8 to /32 and IPv6 /16 to /128: {self}")

    def key(self, address: str) -> str:
        """The client an address belongs to: its group as ``network/prefix`` (or the address
        itself, for a single-address group); text that is no IP address (a test client's name,
        a Unix socket's path) as it is."""
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return address
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        prefix = self.ipv4_prefix if ip.version == 4 else self.ipv6_prefix
        if prefix == ip.max_prefixlen:
            return str(ip)
        return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))


#: the groups ``carcassonne serve`` uses unless told otherwise
DEFAULT_GROUPS = AddressGroups()

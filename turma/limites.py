"""Inicia o servidor Jupyter de um estudante com um limite de memória por processo.

Usado por ``jupyterhub_config.py`` (em ``c.Spawner.cmd``); ninguém precisa chamá-lo à mão.

O JupyterHub entrega ao servidor de cada estudante a variável ``MEM_LIMIT`` (em bytes) quando
``c.Spawner.mem_limit`` está definido, mas o spawner de processos locais não aplica esse limite. Este
programa o aplica como ``RLIMIT_DATA`` (a memória que um processo pode pedir) e então **vira** o
servidor (``exec``): o servidor e cada kernel que ele abrir herdam o mesmo teto. Uma célula que pede
mais do que isso recebe um ``MemoryError`` — uma mensagem clara, e o kernel continua vivo — em vez
de esgotar a memória do servidor, quando o Linux mataria um processo qualquer (talvez o kernel de
outro estudante).

O limite vale para **cada processo**, não para a soma: um estudante com três notebooks abertos pode
usar até três vezes o valor.

Uso: ``python limites.py PROGRAMA [ARGUMENTOS...]``
"""

from __future__ import annotations

import os
import sys

try:
    import resource
except ImportError:  # Windows: não há limites por processo; o servidor roda sem eles
    resource = None


def limite_de_memoria(ambiente: dict[str, str]) -> int | None:
    """O limite em bytes pedido pelo JupyterHub (``MEM_LIMIT``), ou ``None`` se não houver."""
    texto = ambiente.get("MEM_LIMIT", "").strip()
    if not texto:
        return None
    try:
        valor = int(float(texto))
    except ValueError:
        raise SystemExit(f"limites.py: MEM_LIMIT={texto!r} não é um número de bytes") from None
    return valor if valor > 0 else None


def aplicar(ambiente: dict[str, str] | None = None) -> int | None:
    """Aplica o limite de memória a este processo (e aos que ele criar); devolve o limite aplicado."""
    limite = limite_de_memoria(dict(os.environ) if ambiente is None else ambiente)
    if limite is None or resource is None:
        return None
    _, teto = resource.getrlimit(resource.RLIMIT_DATA)
    if teto != resource.RLIM_INFINITY:
        limite = min(limite, teto)
    resource.setrlimit(resource.RLIMIT_DATA, (limite, teto))
    return limite


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    aplicar()
    os.execvp(argv[1], argv[1:])
    return 1  # não chega aqui: exec troca este processo pelo servidor


if __name__ == "__main__":
    sys.exit(main(sys.argv))

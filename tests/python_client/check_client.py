"""Drives a kobana-mcp server with the official Python MCP SDK client (PyPI `mcp`, 2.x).

Usage: check_client.py <mode> <target...>
  mode    `legacy` (initialize handshake, 2025-11-25) or `2026-07-28` (stateless, per-request _meta)
  target  an http(s):// URL of the conformance fixture, or a command line serving it over stdio

Lists tools, calls one, reads a resource, gets a prompt and completes an argument, then prints one
JSON object with what came back; the Rust test (tests/python_client.rs) asserts on it.
"""

import asyncio
import json
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import PromptReference


async def main(mode: str, target: list[str]) -> None:
    if target[0].startswith("http"):
        server = target[0]
    else:
        server = StdioServerParameters(command=target[0], args=target[1:])
    async with Client(server, mode=mode) as client:
        tools = await client.list_tools()
        called = await client.call_tool("test_simple_text", {})
        resource = await client.read_resource("test://static-text")
        prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "one", "arg2": "two"})
        completion = await client.complete(
            PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
            {"name": "arg1", "value": "test"},
        )
        print(
            json.dumps(
                {
                    "protocol_version": client.protocol_version,
                    "tools": [t.name for t in tools.tools],
                    "call_text": called.content[0].text,
                    "call_is_error": bool(called.is_error),
                    "resource_text": resource.contents[0].text,
                    "prompt_text": prompt.messages[0].content.text,
                    "completion": completion.completion.values,
                }
            )
        )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))

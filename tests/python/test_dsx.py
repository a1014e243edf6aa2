"""The dsx Python module as a notebook user calls it (python/dsx_module.cpp).

Run by ctest (test Python.Module) with PYTHONPATH at the built module and DSX_BINARY at the dsx
command, whose output the module must match.
"""
import json
import os
import subprocess
import tempfile
import time
import unittest

import numpy
import pandas

import dsx

DSX = os.environ["DSX_BINARY"]


def command_json(*args):
    return json.loads(subprocess.run([DSX, *args, "--json"], check=True, capture_output=True, text=True).stdout)


class Module(unittest.TestCase):
    def test_catalog_is_the_command_s(self):
        self.assertEqual(dsx.catalog(), command_json("catalog"))
        ids = [h["id"] for h in dsx.catalog("hardware")["hardware"]]
        self.assertIn("h100_sxm", ids)
        with self.assertRaisesRegex(dsx.Error, "unknown catalog section 'hardwre'; valid sections: all, hardware"):
            dsx.catalog("hardwre")

    def test_eval_is_the_command_s_with_units_and_intervals(self):
        point = dsx.eval("gemm", hardware="h100_sxm", precision="fp8", m=1024, n=1024, k=1024)
        self.assertEqual(point, command_json("eval", "gemm", "hardware=h100_sxm", "precision=fp8", "m=1024",
                                             "n=1024", "k=1024"))
        self.assertEqual(point["status"], "ok")
        self.assertEqual(point["units"]["time_s"], "s")
        self.assertLess(point["intervals"]["time_s"]["p10"], point["metrics"]["time_s"])
        uncalibrated = dsx.eval("gemm", calibration="none", hardware="h100_sxm", precision="fp8", m=1024, n=1024,
                                k=1024, launch_overhead="0 s")
        self.assertNotIn("intervals", uncalibrated)

    def test_bad_input_raises_the_command_s_messages(self):
        with self.assertRaises(dsx.Error) as caught:
            dsx.eval("gemm", hardware="h100_sxn", precision="fp8", m=1024, n=1024, k=1024)
        message = str(caught.exception)
        self.assertIn("<command line>:", message)
        self.assertIn("unknown hardware id 'h100_sxn'; did you mean 'h100_sxm'?", message)
        with self.assertRaisesRegex(dsx.Error, "unknown solver 'gem'; did you mean 'gemm'"):
            dsx.eval("gem", hardware="h100_sxm")

    def test_eval_many_matches_eval_point_by_point_and_is_fast(self):
        sizes = numpy.array([256.0, 1024.0, 4096.0, 16384.0])
        many = dsx.eval_many("gemm", {"hardware": "h100_sxm", "precision": "fp8", "m": sizes, "n": sizes, "k": sizes})
        for i, size in enumerate(sizes):
            one = dsx.eval("gemm", hardware="h100_sxm", precision="fp8", m=int(size), n=int(size), k=int(size))
            self.assertEqual(many["time_s"][i], one["metrics"]["time_s"])
        self.assertTrue((many["status"] == 0).all())
        with self.assertRaisesRegex(dsx.Error, r"m\[1\] = 0.5 is outside \[1, 1e\+09\] or not an integer"):
            dsx.eval_many("gemm", {"hardware": "h100_sxm", "precision": "fp8", "m": [8.0, 0.5], "n": 8, "k": 8})
        n = 200_000
        m = numpy.linspace(64, 65536, n).round()
        start = time.perf_counter()
        rows = dsx.eval_many("gemm", {"hardware": "h100_sxm", "precision": "bf16", "m": m, "n": 4096, "k": 4096})
        rate = n / (time.perf_counter() - start)
        print(f"eval_many: {rate:,.0f} points/s")
        self.assertEqual(len(rows["time_s"]), n)
        self.assertGreater(rate, 100_000)

    def test_run_and_load_give_the_command_s_tables(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = dsx.run("studies/quickstart.yaml", os.path.join(tmp, "quick"))
            self.assertEqual(out, os.path.join(tmp, "quick"))
            tables = dsx.load(out)
            self.assertIsInstance(tables["results"], pandas.DataFrame)
            self.assertEqual(len(tables["results"]), len(pandas.read_csv(os.path.join(out, "results.csv"))))
            self.assertIn("pareto", tables)
            bad = os.path.join(tmp, "bad.yaml")
            with open(bad, "w") as f:
                f.write("study: bad\ntitle: T\nquestion: Q?\nsolver: inference\nobjectivs: []\n")
            with self.assertRaisesRegex(dsx.Error, "bad.yaml:5:1: error: unknown key 'objectivs'; did you mean 'objectives'"):
                dsx.run(bad, os.path.join(tmp, "bad"))
            with self.assertRaisesRegex(dsx.Error, "not a dsx run folder"):
                dsx.load(tmp)



class Readme(unittest.TestCase):
    def test_the_readme_example_runs(self):
        with open("README.md") as f:
            readme = f.read()
        start = readme.index("```python\n", readme.index("## Python")) + len("```python\n")
        example = readme[start:readme.index("```", start)]
        # The example's run folder is a fixed path; run it in a folder of this test's own, so an
        # earlier run there (another checkout, another catalog) cannot refuse it.
        self.assertIn('"/tmp/quickstart"', example)
        namespace = {}
        with tempfile.TemporaryDirectory() as tmp:
            example = example.replace('"/tmp/quickstart"', repr(os.path.join(tmp, "quickstart")))
            exec(compile(example, "README.md (Python example)", "exec"), namespace)
        self.assertGreater(len(namespace["tables"]["results"]), 0)
        self.assertEqual(namespace["point"]["status"], "ok")


if __name__ == "__main__":
    unittest.main()

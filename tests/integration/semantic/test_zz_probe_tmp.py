import time
from tests.integration.semantic.test_compiler_exec import *  # noqa
from tests.integration.semantic.test_compiler_exec import _mysql

@pytest.mark.mysql
def test_probe(mysql_db, demo):
    frames = demo.tables()
    conn = _mysql(mysql_db)
    t = time.time()
    with conn.cursor() as cur:
        for statement in MYSQL_DDL:
            cur.execute(statement)
        for table in MYSQL_TABLES:
            frame = frames[table]
            columns = ", ".join(frame.columns)
            marks = ", ".join(["%s"] * len(frame.columns))
            rows = mysql_rows(frame)
            t2 = time.time()
            cur.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", rows)
            print(table, "insert", round(time.time() - t2, 2))
    print("load", time.time() - t)
    with conn.cursor() as cur:
        for case in CASES:
            t = time.time()
            cur.execute(compiled_for(case, "mysql").sql); cur.fetchall()
            print(case["name"], round(time.time() - t, 3))
    conn.close()

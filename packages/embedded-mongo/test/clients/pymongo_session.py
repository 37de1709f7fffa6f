"""A Python user's session against the server at argv[1], with pymongo (Debian's python3-pymongo).

Prints one JSON object: each check's name and what pymongo saw, for test/clients/pymongo.test.ts
to compare with what mongod gives. Nothing here is written for our engine: it is how a Python
program uses MongoDB.
"""
import json
import re
import sys

from bson import ObjectId, SON
from bson.decimal128 import Decimal128
from bson.int64 import Int64
from pymongo import ASCENDING, DESCENDING, TEXT, MongoClient, ReturnDocument, UpdateOne, InsertOne, DeleteOne
from pymongo.errors import DuplicateKeyError, OperationFailure

client = MongoClient(sys.argv[1], serverSelectionTimeoutMS=5000)
db = client[sys.argv[2]]
out = {}

people = db.people
people.insert_many([{"_id": i, "name": f"p{i}", "age": 20 + i % 7, "team": ["a", "b", "c"][i % 3]} for i in range(30)])
out["count"] = people.count_documents({"team": "b"})
out["page"] = [d["_id"] for d in people.find({"age": {"$gte": 24}}, {"_id": 1}).sort([("age", DESCENDING), ("_id", ASCENDING)]).limit(5)]

# Numbers keep their BSON types both ways.
nums = db.numbers
nums.insert_one({"_id": 1, "small": Int64(5), "big": Int64(3_000_000_000), "double": 5.0, "int": 5, "dec": Decimal128("1.10")})
got = nums.find_one({"_id": 1})
out["types"] = {k: type(got[k]).__name__ for k in ("small", "big", "double", "int", "dec")}
out["type_query"] = sorted(d["_id"] for d in nums.find({"small": {"$type": "long"}}))
nums.update_one({"_id": 1}, {"$inc": {"big": Int64(1)}})
out["inc_big"] = str(nums.find_one({"_id": 1})["big"])
out["dec_equal"] = nums.count_documents({"dec": Decimal128("1.10")})

# Indexes: directions as Python ints and floats, explain names the index.
people.create_index([("age", ASCENDING), ("name", DESCENDING)])
# pymongo's helper takes ints only; a key pattern built as a document may hold a float (mongosh's do).
db.command(SON([("createIndexes", "people"), ("indexes", [{"key": {"team": 1.0}, "name": "team_float"}])]))
plan = people.find({"age": 22}).sort("name", -1).explain()["queryPlanner"]["winningPlan"]
def stages(p):
    p = p.get("queryPlan", p)
    return [p["stage"]] + [s for c in ([p["inputStage"]] if "inputStage" in p else p.get("inputStages", [])) for s in stages(c)]
out["plan"] = stages(plan)
out["team_plan"] = stages(people.find({"team": "c"}).explain()["queryPlanner"]["winningPlan"])
out["indexes"] = sorted(i["name"] for i in people.list_indexes())

# Unique index and its error.
db.users.create_index("email", unique=True)
db.users.insert_one({"email": "x@example.com"})
try:
    db.users.insert_one({"email": "x@example.com"})
    out["duplicate"] = None
except DuplicateKeyError as e:
    out["duplicate"] = e.code

# Aggregation.
out["by_team"] = sorted((d["_id"], d["n"], d["avg"]) for d in people.aggregate([
    {"$group": {"_id": "$team", "n": {"$sum": 1}, "avg": {"$avg": "$age"}}},
]))

# find_one_and_update, bulk_write.
after = people.find_one_and_update({"_id": 3}, {"$set": {"name": "renamed"}}, return_document=ReturnDocument.AFTER)
out["after"] = after["name"]
result = people.bulk_write([InsertOne({"_id": 100, "age": 1}), UpdateOne({"_id": 100}, {"$inc": {"age": 1}}), DeleteOne({"_id": 0})])
out["bulk"] = [result.inserted_count, result.modified_count, result.deleted_count]

# Embedded documents compare field by field, in order (SON keeps the order).
db.docs.insert_many([{"_id": 1, "sub": SON([("a", 1), ("b", 2)])}, {"_id": 2, "sub": SON([("b", 2), ("a", 1)])}])
out["subdoc"] = [d["_id"] for d in db.docs.find({"sub": SON([("a", 1), ("b", 2)])})]

# Regular expressions with Python's inline flags.
out["regex"] = sorted(d["_id"] for d in people.find({"name": re.compile("(?i)P1")}))

# A misspelt option is refused, not ignored.
try:
    db.command(SON([("find", "people"), ("filter", {}), ("projectoin", {"name": 1})]))
    out["unknown_field"] = None
except OperationFailure as e:
    out["unknown_field"] = e.code

# Text search: a text index, $text, and the score to sort by.
db.notes.create_index([("body", TEXT)], weights={"body": 2})
db.notes.insert_many([{"_id": 1, "body": "the meetings ran long"}, {"_id": 2, "body": "a short meeting"}, {"_id": 3, "body": "lunch"}])
scored = db.notes.find({"$text": {"$search": "meeting"}}, {"score": {"$meta": "textScore"}}).sort([("score", {"$meta": "textScore"})])
out["text"] = [d["_id"] for d in scored]

# ObjectIds round-trip.
oid = ObjectId()
db.ids.insert_one({"_id": oid})
out["oid"] = db.ids.find_one({"_id": oid})["_id"] == oid

print(json.dumps(out))

-- Venues near a point (`geoloc_lat`, `geoloc_lng`) are read from a box of coordinates:
-- without an index, the box reads every venue's row to find the few in it. Only venues have
-- coordinates, so the index holds them alone; its columns answer the query without
-- the rows.
CREATE INDEX posts_coordinates ON posts (geo_lat, geo_lng) INCLUDE (post_type, id)
    WHERE geo_lat IS NOT NULL;

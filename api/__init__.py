"""The provenance API: the FastAPI app (`api.app.create_app`), its GraphQL schema (`api.schema`), profile growth
(`api.growth`), graph exploration for the browser (`api.explore`), the browser page and report pages."""

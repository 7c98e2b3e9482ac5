from django.utils.translation import gettext_lazy as _
from rest_framework.pagination import PageNumberPagination

from quizzes.api.exceptions import ApiError

INVALID_PAGE = _("The page must be a single whole number from 1 up.")


class StrictPageNumberPagination(PageNumberPagination):
    """``?page=`` must be one positive integer: anything else is a 400, not page 1.

    A page past the last one stays DRF's 404.
    """

    page_size = 20

    def get_page_number(self, request, paginator):
        values = request.query_params.getlist(self.page_query_param)
        if not values:
            return 1
        if len(values) > 1 or not values[0].isascii() or not values[0].isdigit() or len(values[0]) > 9:
            raise ApiError(INVALID_PAGE, code="invalid_page", status_code=400)
        if int(values[0]) < 1:
            raise ApiError(INVALID_PAGE, code="invalid_page", status_code=400)
        return int(values[0])

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["schema"]["minimum"] = 1
        return parameters
